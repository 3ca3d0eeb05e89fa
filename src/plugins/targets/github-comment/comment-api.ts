/**
 * The few operations `github_comment` does on a pull request, behind one interface with two implementations:
 * through the gh CLI with the operator's login (`gh-comments.ts`), or through the REST API as a GitHub App
 * (`app-comments.ts`). Sticky mode and the head check are written once, over this interface.
 */

/** A comment as the sticky search sees it: its id, its author, and whether its body starts with the marker. */
export interface CommentRow {
  readonly id: string
  readonly login: string
  readonly marked: boolean
}

/** Comments per page the sticky search reads. */
export const PER_PAGE = 100

/**
 * One pull request's comments, as one account. Each failure is a DeliveryError saying what was being done and
 * whether trying again later can help.
 */
export interface CommentApi {
  /** The account that posts, for sticky mode's "edit only what we wrote". */
  login(): Promise<string>
  /** Page `page` (from 1) of {@link PER_PAGE} comments, oldest first. */
  listPage(page: number, marker: string): Promise<readonly CommentRow[]>
  /** Edits a comment; its URL, or undefined when it is gone (deleted since it was found). */
  edit(id: string, body: string): Promise<string | undefined>
  /** Creates a comment that a retry will find and edit (sticky mode): a timeout may be retried. */
  create(body: string): Promise<string>
  /** Posts a plain comment (new mode): a timeout is not retried, as the comment may already be there. */
  post(body: string): Promise<string>
  /** The pull request's head SHA now. */
  head(): Promise<string>
}
