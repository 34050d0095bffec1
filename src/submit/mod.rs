//! The second command: after the deploy, tell search engines what changed — IndexNow with
//! the changes file's URLs (`--indexnow-submit`), Google Search Console with the sitemap
//! (`--google-submit`).

pub mod google;
pub mod indexnow;
