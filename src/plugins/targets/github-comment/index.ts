/** `deliver: github_comment`: the answer posted as a comment on the pull request, through `gh`. */
export { githubCommentDelivery, GITHUB_COMMENT_LIMIT, type GithubCommentOptions } from './github-comment-target.js'
export type { CommentMode } from './validate.js'
export { githubCommentPlugin } from './plugin.js'
