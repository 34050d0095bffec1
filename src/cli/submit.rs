//! The settings of the commands run after the deploy: `--indexnow-submit` and
//! `--google-submit`.

use std::fs;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use super::args::Cli;
use super::place::{default_name, path_inside};
use crate::outputs::claim::{self, Holds, Output};
use crate::submit::{google, indexnow};
use crate::url::encode_path;

use super::settings::{indexnow_key, key_file, missing, verbosity};

/// `--indexnow-submit`'s settings.
pub fn submit_settings(cli: Cli) -> Result<indexnow::Settings> {
    let Some(base) = cli.base_url.clone() else {
        return Err(missing("--base-url is required"));
    };
    let Some(changes) = cli.changes.clone() else {
        return Err(missing(
            "--indexnow-submit submits the URLs of the --changes file: name it",
        ));
    };
    let Some(key) = indexnow_key(&cli)? else {
        return Err(missing(
            "--indexnow-submit needs the key: --indexnow-key-env or --indexnow-key-file",
        ));
    };
    let receipt = indexnow::receipt_path(&changes);
    let what = format!("the receipt {}", receipt.display());
    claim::check(&[Output::new(what, receipt, Holds::Receipt)], None, |_| {
        false
    })?;
    Ok(indexnow::Settings {
        changes,
        base,
        key,
        verbosity: verbosity(&cli),
        endpoint: cli.indexnow_endpoint,
        timeout: Duration::from_secs(cli.http_timeout),
    })
}

/// `--google-submit`'s settings: the sitemap is the file a run with these options writes,
/// at its URL under the base URL.
pub fn google_settings(cli: Cli) -> Result<google::Settings> {
    let Some(base) = cli.base_url.clone() else {
        return Err(missing("--base-url is required"));
    };
    let Some(dir) = cli.dir.clone() else {
        return Err(missing(
            "--google-submit submits the sitemap in DIR: name DIR",
        ));
    };
    let path = match &cli.output {
        Some(path) if path.as_os_str() == "-" => {
            bail!("--google-submit submits a sitemap file, and -o - names none")
        }
        Some(path) => path.clone(),
        None => dir.join(default_name(cli.format, cli.gzip)),
    };
    let Some(rel) = path_inside(&dir, &path) else {
        bail!(
            "the sitemap {} is outside DIR {}, so it has no public URL to submit",
            path.display(),
            dir.display()
        );
    };
    if !fs::metadata(&path).is_ok_and(|meta| meta.is_file()) {
        bail!(
            "the sitemap {} is not there: --google-submit submits the one a run wrote, after the deploy",
            path.display()
        );
    }
    let sitemap =
        url::Url::parse(&base.join(&encode_path(&rel))).context("the sitemap's URL is a URL")?;
    let property = match cli.google_property.clone() {
        Some(property) => property,
        None => google::Property::parse(&base.join(""))
            .map_err(|err| anyhow::anyhow!("the base URL as the Search Console property: {err}"))?,
    };
    if !property.holds(&sitemap) {
        bail!(
            "the sitemap {sitemap} is not in the Search Console property {property}: Search \
             Console takes a property's own sitemaps only\n\
             hint: name the property the site belongs to with --google-property"
        );
    }
    let Some(account) = google_account(&cli)? else {
        return Err(missing(
            "--google-submit needs the service account's key: --google-key-env or \
             --google-key-file",
        ));
    };
    google::secure(&cli.google_endpoint, "--google-endpoint")?;
    Ok(google::Settings {
        account,
        property,
        sitemap,
        verbosity: verbosity(&cli),
        endpoint: cli.google_endpoint,
        timeout: Duration::from_secs(cli.http_timeout),
    })
}

/// The service account of `--google-key-env` or `--google-key-file`, if one is named.
fn google_account(cli: &Cli) -> Result<Option<google::Account>> {
    if let Some(name) = &cli.google_key_env {
        let Some(value) = std::env::var_os(name) else {
            bail!("--google-key-env {name}: the environment variable {name} is not set");
        };
        let source = format!("the environment variable {name}");
        return google::Account::parse(value.as_encoded_bytes(), &source).map(Some);
    }
    let Some(path) = &cli.google_key_file else {
        return Ok(None);
    };
    let source = format!("--google-key-file {}", path.display());
    let text = key_file(path, google::MAX_JSON, &source)?;
    google::Account::parse(&text, &source).map(Some)
}
