//! `--google-submit`: after the deploy, the sitemap (the index when split) is submitted to
//! Google Search Console through its API's `sitemaps.submit`, as a service account: a JWT
//! signed with the account's key (RS256) is exchanged at the key's `token_uri` for an
//! access token, which the PUT of `sites/{property}/sitemaps/{sitemap}` carries.
//!
//! No receipt: the PUT is idempotent, and a submission after each deploy is what asks
//! Google to read the sitemap again. 429 and 5xx answers are retried (`http::retrying`).

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, anyhow, bail};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use ring::rand::SystemRandom;
use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair};
use serde_json::{Value, json};
use url::Url;

use crate::io::http::{self, Answer, Client};
use crate::report::{Report, Verbosity, keep_secret, shown};
use crate::url::{Given, given_url};

/// The Search Console API (its `webmasters/v3` path, which `sitemaps.submit` lives under).
pub const DEFAULT_ENDPOINT: &str = "https://www.googleapis.com/webmasters/v3/";

/// Where a key that names no `token_uri` is exchanged.
const TOKEN_URI: &str = "https://oauth2.googleapis.com/token";

/// The access asked for: Search Console, read and write.
const SCOPE: &str = "https://www.googleapis.com/auth/webmasters";

/// How long the signed JWT is good for: the most Google takes.
const LIFETIME: u64 = 3600;

/// The most a service account's key file (about 2.4 KB) or a JSON answer may hold.
pub const MAX_JSON: u64 = 64 * 1024;

/// What stays as it is in a path segment: RFC 3986's unreserved characters.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A service account, from its JSON key. The private key is never shown (nor by `Debug`):
/// once read, every message shows it, and each line of it, as `KEY`.
pub struct Account {
    email: String,
    project: Option<String>,
    key_id: Option<String>,
    key: RsaKeyPair,
    token_uri: Url,
}

impl fmt::Debug for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Account({}, …)", self.email)
    }
}

impl Account {
    /// The service account of the JSON key `text`; `source` names where it came from for
    /// the message.
    pub fn parse(text: &[u8], source: &str) -> Result<Account> {
        let not_a_key = || anyhow!("{source} does not hold a service account's JSON key");
        let json: Value = serde_json::from_slice(text).map_err(|_| not_a_key())?;
        let field = |name: &str| json.get(name).and_then(Value::as_str);
        // Before anything could show it.
        if let Some(pem) = field("private_key") {
            keep_secret(pem);
            for line in pem.lines().filter(|line| line.len() >= 16) {
                keep_secret(line);
            }
        }
        match field("type") {
            Some("service_account") => {}
            Some(other) => bail!(
                "{source} is a key of type \"{}\", not a service account's\n\
                 hint: make a key of a service account: Google Cloud console, IAM & Admin › \
                 Service accounts › Keys › Add key › JSON",
                shown(other)
            ),
            None => return Err(not_a_key()),
        }
        let (Some(email), Some(pem)) = (field("client_email"), field("private_key")) else {
            bail!(
                "{source} lacks client_email or private_key: it is not a whole service account key"
            );
        };
        let der = pkcs8(pem).ok_or_else(|| {
            anyhow!("{source}: its private_key is not a PEM PKCS#8 key (BEGIN PRIVATE KEY)")
        })?;
        let key = RsaKeyPair::from_pkcs8(&der).map_err(|err| {
            anyhow!("{source}: its private_key is not an RSA key ring takes: {err}")
        })?;
        let token_uri = field("token_uri").unwrap_or(TOKEN_URI);
        let token_uri = given_url(token_uri, &format!("{source}: its token_uri"), Given::Base)?;
        secure(&token_uri, &format!("{source}: its token_uri"))?;
        Ok(Account {
            email: email.to_string(),
            project: field("project_id").map(String::from),
            key_id: field("private_key_id").map(String::from),
            key,
            token_uri,
        })
    }

    /// The signed JWT that asks for an access token at `iat` (seconds since the epoch).
    fn assertion(&self, iat: u64) -> Result<String> {
        let mut header = json!({"alg": "RS256", "typ": "JWT"});
        if let Some(key_id) = &self.key_id {
            header["kid"] = json!(key_id);
        }
        let claims = json!({
            "iss": self.email,
            "scope": SCOPE,
            "aud": self.token_uri.as_str(),
            "iat": iat,
            "exp": iat + LIFETIME,
        });
        let mut jwt = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let mut signature = vec![0; self.key.public().modulus_len()];
        self.key
            .sign(
                &RSA_PKCS1_SHA256,
                &SystemRandom::new(),
                jwt.as_bytes(),
                &mut signature,
            )
            .map_err(|_| anyhow!("cannot sign the JWT with the service account's key"))?;
        jwt.push('.');
        jwt.push_str(&URL_SAFE_NO_PAD.encode(signature));
        Ok(jwt)
    }
}

/// The DER of a PEM `PRIVATE KEY` (PKCS#8), as Google writes `private_key`.
fn pkcs8(pem: &str) -> Option<Vec<u8>> {
    let body = pem
        .trim()
        .strip_prefix("-----BEGIN PRIVATE KEY-----")?
        .strip_suffix("-----END PRIVATE KEY-----")?;
    let base64: String = body.split_ascii_whitespace().collect();
    STANDARD.decode(base64).ok()
}

/// Refuses an http URL off the loopback address: a signed JWT or an access token sent
/// there would cross the network in clear.
pub fn secure(url: &Url, what: &str) -> Result<()> {
    let loopback = match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name == "localhost",
        None => false,
    };
    if url.scheme() != "https" && !loopback {
        bail!(
            "{what} {url} is not https: the credentials sent there would cross the network in \
             clear (http is taken on the loopback address only)"
        );
    }
    Ok(())
}

/// A Search Console property: `sc-domain:example.com` (a Domain property) or a URL prefix
/// (`https://example.com/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Property {
    Domain(String),
    Prefix(Url),
}

impl Property {
    pub fn parse(text: &str) -> Result<Property, String> {
        if let Some(domain) = text.strip_prefix("sc-domain:") {
            let host = Url::parse(&format!("https://{domain}/"))
                .ok()
                .and_then(|url| url.host_str().map(String::from));
            return match host {
                Some(host) if host == domain && !domain.is_empty() => Ok(Property::Domain(host)),
                _ => Err(format!(
                    "{text:?} is not a Domain property: sc-domain: and a host name in lower case, \
                     such as sc-domain:example.com"
                )),
            };
        }
        match Url::parse(text) {
            Ok(url)
                if matches!(url.scheme(), "http" | "https")
                    && url.path().ends_with('/')
                    && url.query().is_none()
                    && url.fragment().is_none()
                    && url.username().is_empty() =>
            {
                Ok(Property::Prefix(url))
            }
            _ => Err(format!(
                "{text:?} is not a Search Console property: a URL prefix ending in / \
                 (https://example.com/) or a Domain property (sc-domain:example.com)"
            )),
        }
    }

    /// Whether the sitemap at `url` belongs to the property.
    pub fn holds(&self, url: &Url) -> bool {
        match self {
            Property::Domain(domain) => url.host_str().is_some_and(|host| {
                host == domain
                    || host
                        .strip_suffix(domain.as_str())
                        .is_some_and(|sub| sub.ends_with('.'))
            }),
            Property::Prefix(prefix) => url.as_str().starts_with(prefix.as_str()),
        }
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Property::Domain(domain) => write!(f, "sc-domain:{domain}"),
            Property::Prefix(url) => write!(f, "{url}"),
        }
    }
}

/// What `--google-submit` needs.
#[derive(Debug)]
pub struct Settings {
    pub account: Account,
    pub property: Property,
    /// The public URL of the sitemap (the index when split).
    pub sitemap: Url,
    pub endpoint: Url,
    pub timeout: Duration,
    pub verbosity: Verbosity,
}

pub fn submit(settings: &Settings) -> Result<()> {
    let report = &mut Report::new(settings.verbosity, false);
    let client = Client::new(settings.timeout);
    let token = access_token(&settings.account, &client, report)?;
    let url = format!(
        "{}/sites/{}/sitemaps/{}",
        settings.endpoint.as_str().trim_end_matches('/'),
        utf8_percent_encode(&settings.property.to_string(), SEGMENT),
        utf8_percent_encode(settings.sitemap.as_str(), SEGMENT)
    );
    let url = Url::parse(&url).with_context(|| format!("{url} is not a URL"))?;
    let what = format!("Search Console {}", settings.endpoint);
    let authorization = format!("Bearer {token}");
    let answer = http::retrying(&what, report, || {
        client.put_empty(&url, &authorization, MAX_JSON)
    })?;
    if !(200..300).contains(&answer.status) {
        return Err(refused(settings, &what, &answer));
    }
    report.note(format!(
        "submitted {} to Google Search Console, property {} ({}: accepted)",
        settings.sitemap, settings.property, answer.status
    ));
    Ok(())
}

/// An access token for the account, from its token endpoint.
fn access_token(account: &Account, client: &Client, report: &mut Report) -> Result<String> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .context("the clock is before 1970")?
        .as_secs();
    let assertion = account.assertion(now)?;
    keep_secret(&assertion);
    let form = format!(
        "grant_type={}&assertion={assertion}",
        utf8_percent_encode("urn:ietf:params:oauth:grant-type:jwt-bearer", SEGMENT)
    );
    let endpoint = &account.token_uri;
    let what = format!("the token endpoint {endpoint}");
    let answer = http::retrying(&what, report, || {
        client.post(
            endpoint,
            "application/x-www-form-urlencoded",
            form.as_bytes(),
            MAX_JSON,
        )
    })?;
    let json: Option<Value> = serde_json::from_slice(&answer.body).ok();
    let field = |name: &str| {
        json.as_ref()
            .and_then(|json| json.get(name))
            .and_then(Value::as_str)
    };
    if (200..300).contains(&answer.status) {
        // A token is kept out of every message later on; one too short to be a token
        // (Google's are over 100 characters) would hide its letters in every word instead.
        let token = field("access_token")
            .filter(|token| token.len() >= MIN_TOKEN)
            .ok_or_else(|| {
                anyhow!(
                    "{what} answered {} with no usable access_token (a token has {MIN_TOKEN} \
                     characters at least)",
                    answer.status
                )
            })?;
        keep_secret(token);
        return Ok(token.to_string());
    }
    if answer.status == 429 || answer.status >= 500 {
        bail!("{what} answered {} (again after retries)", answer);
    }
    let cause = match (field("error"), field("error_description")) {
        (Some(error), Some(description)) => format!("{} ({})", shown(error), shown(description)),
        (Some(error), None) => shown(error),
        _ => answer.to_string(),
    };
    let hint = match field("error") {
        Some("invalid_grant" | "invalid_client" | "unauthorized_client") => format!(
            "\nhint: the key of {} may have been deleted or disabled (make a new one: Google \
             Cloud console, IAM & Admin › Service accounts › Keys), or this machine's clock is \
             off (the JWT is dated by it)",
            account.email
        ),
        _ => String::new(),
    };
    Err(anyhow!(
        "{what} refused the service account's JWT: {} {cause}{hint}",
        answer.status
    ))
}

/// The shortest access token taken.
const MIN_TOKEN: usize = 16;

/// The error for a submission Search Console refused, with what to do about it.
fn refused(settings: &Settings, what: &str, answer: &Answer) -> anyhow::Error {
    let json: Option<Value> = serde_json::from_slice(&answer.body).ok();
    let message = json
        .as_ref()
        .and_then(|json| json.pointer("/error/message"))
        .and_then(Value::as_str)
        .map_or_else(|| answer.excerpt.clone(), shown);
    let body = String::from_utf8_lossy(&answer.body);
    let (property, email) = (&settings.property, &settings.account.email);
    let (cause, hint) = match answer.status {
        403 if body.contains("SERVICE_DISABLED") || body.contains("accessNotConfigured") => (
            format!(
                "the Google Search Console API is not enabled in the service account's project{}",
                settings
                    .account
                    .project
                    .as_ref()
                    .map(|project| format!(" {project}"))
                    .unwrap_or_default()
            ),
            format!(
                "enable it: https://console.cloud.google.com/apis/library/searchconsole.googleapis.com{}, \
                 then wait a few minutes",
                settings
                    .account
                    .project
                    .as_ref()
                    .map(|project| format!("?project={project}"))
                    .unwrap_or_default()
            ),
        ),
        403 => (
            format!("the service account {email} is not an owner of the property {property}"),
            format!(
                "in Search Console, open the property, Settings › Users and permissions › Add \
                 user: {email}, permission Owner"
            ),
        ),
        404 => (
            format!("Search Console has no property {property}"),
            match property {
                Property::Prefix(url) => format!(
                    "a Domain property is named sc-domain:{}: if the site's is one, name it \
                     with --google-property",
                    url.host_str().unwrap_or("example.com")
                ),
                Property::Domain(domain) => format!(
                    "a URL-prefix property is named by its URL with the slash \
                     (https://{domain}/): if the site's is one, name it with --google-property"
                ),
            },
        ),
        401 => (
            "the access token was refused".to_string(),
            format!(
                "is {} Google's token endpoint? its tokens are the ones Search Console takes",
                settings.account.token_uri
            ),
        ),
        429 | 500..=599 => ("again after retries".to_string(), String::new()),
        _ => (String::new(), String::new()),
    };
    let cause = match (cause.as_str(), message.as_str()) {
        ("", "") => String::new(),
        ("", message) => format!(": {message}"),
        (cause, "") => format!(" ({cause})"),
        (cause, message) => format!(" ({cause}): {message}"),
    };
    let hint = match hint.as_str() {
        "" => String::new(),
        hint => format!("\nhint: {hint}"),
    };
    anyhow!(
        "{what} answered {} to the submission of {}{cause}{hint}",
        answer.status,
        settings.sitemap
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_property_is_a_domain_or_a_url_prefix_that_holds_the_sitemap() {
        let url = |text| Url::parse(text).unwrap();
        let domain = Property::parse("sc-domain:example.com").unwrap();
        assert_eq!(domain.to_string(), "sc-domain:example.com");
        assert!(domain.holds(&url("https://example.com/sitemap.xml")));
        assert!(domain.holds(&url("http://www.example.com/sitemap.xml")));
        assert!(!domain.holds(&url("https://badexample.com/sitemap.xml")));
        let prefix = Property::parse("https://example.com/docs/").unwrap();
        assert!(prefix.holds(&url("https://example.com/docs/sitemap.xml")));
        assert!(!prefix.holds(&url("https://example.com/sitemap.xml")));
        assert!(!prefix.holds(&url("http://example.com/docs/sitemap.xml")));
        for bad in [
            "sc-domain:",
            "sc-domain:Example.com",
            "sc-domain:https://example.com/",
            "example.com",
            "https://example.com/docs",
            "ftp://example.com/",
            "https://example.com/?q",
        ] {
            assert!(Property::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_https_or_the_loopback_address_gets_credentials() {
        for (url, ok) in [
            ("https://oauth2.googleapis.com/token", true),
            ("http://127.0.0.1:8080/token", true),
            ("http://[::1]/token", true),
            ("http://localhost/token", true),
            ("http://oauth2.googleapis.com/token", false),
            ("http://10.0.0.1/token", false),
        ] {
            assert_eq!(secure(&Url::parse(url).unwrap(), "t").is_ok(), ok, "{url}");
        }
    }

    #[test]
    fn a_pem_pkcs8_key_is_read_and_anything_else_refused() {
        assert_eq!(
            pkcs8("-----BEGIN PRIVATE KEY-----\nAAEC\nAw==\n-----END PRIVATE KEY-----\n"),
            Some(vec![0, 1, 2, 3])
        );
        assert_eq!(
            pkcs8("-----BEGIN RSA PRIVATE KEY-----\nAAEC\n-----END RSA PRIVATE KEY-----"),
            None
        );
        assert_eq!(
            pkcs8("-----BEGIN PRIVATE KEY-----\n!!\n-----END PRIVATE KEY-----"),
            None
        );
    }
}
