/** `deliver: gitlab_mr`: a review posted on a GitLab merge request. */
export { gitlabMrDelivery, GITLAB_API_URL, type GitlabMrOptions } from './gitlab-mr-target.js'
export { gitlabMrPlugin } from './plugin.js'
