//! HTTP, for what a run reads from the live site (the published state, the published
//! sitemap) and what `--indexnow-submit` and `--google-submit` send: ureq over rustls, the
//! proxy from `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` with `NO_PROXY` honoured, a time limit
//! on every request, redirects followed only on the same origin, bodies read within a
//! limit.

use std::fmt;
use std::io::{self, Read};
use std::time::Duration;

use anyhow::{Result, anyhow, bail};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc2822;
use url::Url;

use crate::io::input::{Capped, Deadline, size};
use crate::report::{self, Report};

/// Redirects followed on one origin before giving up.
const MAX_REDIRECTS: usize = 5;

/// How much of an answer's body is read when only a message shows it: far more than the
/// message shows, so that a secret it echoes is found whole (and hidden) before it is cut.
pub const FOR_EXCERPT: u64 = 16 * 1024;

/// Tries of one request answered 429 or 5xx.
const TRIES: u32 = 4;

/// The longest wait a `Retry-After` may ask for.
const MAX_WAIT: u64 = 60;

pub struct Client {
    agent: ureq::Agent,
    timeout: Duration,
}

/// What a GET found.
pub enum Got {
    /// The body, read within the limit given, and the URL it came from after redirects.
    Found(Box<Body>, Url),
    /// 404 or 410: nothing was ever published there, or it was taken away.
    Missing(u16),
}

/// No connection to the host at all (no network, no such name, a refused connection): the
/// site is not there for this machine, which is not a site that failed to answer.
#[derive(Debug)]
pub struct Unreachable(pub Url, pub String);

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot fetch {}: {}", self.0, self.1)
    }
}

impl std::error::Error for Unreachable {}

/// Whether a request failed before any connection was made: a host that answered, then
/// failed or went silent, is not unreachable.
fn unreachable(err: &ureq::Error) -> bool {
    use io::ErrorKind::*;
    match err {
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => true,
        ureq::Error::Timeout(timeout) => {
            matches!(timeout, ureq::Timeout::Resolve | ureq::Timeout::Connect)
        }
        // A failed name lookup is an io error of no kind of its own.
        ureq::Error::Io(err) => !matches!(
            err.kind(),
            TimedOut
                | ConnectionReset
                | ConnectionAborted
                | UnexpectedEof
                | BrokenPipe
                | InvalidData
        ),
        _ => false,
    }
}

/// A response's body, limited.
pub struct Body(Capped<ureq::BodyReader<'static>>);

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

/// A POST's or PUT's answer.
pub struct Answer {
    pub status: u16,
    /// `Retry-After`, in seconds from now.
    pub retry_after: Option<u64>,
    /// The body, as much of it as was asked for.
    pub body: Vec<u8>,
    /// The start of the body, on one line, for messages (see `report::shown`).
    pub excerpt: String,
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.status)?;
        if !self.excerpt.is_empty() {
            write!(f, ": {}", self.excerpt)?;
        }
        Ok(())
    }
}

impl Client {
    /// A client whose every request, body included, ends within `timeout`.
    pub fn new(timeout: Duration) -> Client {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .max_redirects(0)
            .http_status_as_error(false)
            .user_agent(concat!("sitemapgen/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Client { agent, timeout }
    }

    /// GETs `url`, whose body may hold at most `limit` bytes, the body read by `deadline`
    /// too when one is given. Redirects are followed on the same scheme, host and port only;
    /// an answer other than 2xx, 404 and 410 is an error.
    pub fn get(&self, url: &Url, limit: u64, deadline: Option<&Deadline>) -> Result<Got> {
        let mut at = url.clone();
        for _ in 0..=MAX_REDIRECTS {
            let timeout = match deadline {
                Some(deadline) => deadline
                    .left()
                    .map_err(|err| anyhow!("cannot fetch {at}: {err}"))?
                    .min(self.timeout),
                None => self.timeout,
            };
            let response = self
                .agent
                .get(at.as_str())
                .config()
                .timeout_global(Some(timeout))
                .build()
                .call()
                .map_err(|err| match deadline.map(Deadline::left) {
                    // The time of the whole ran out, not that of a request.
                    Some(Err(passed)) => anyhow!("cannot fetch {at}: {passed}"),
                    _ if unreachable(&err) => anyhow!(Unreachable(at.clone(), err.to_string())),
                    _ => anyhow!("cannot fetch {at}: {err}"),
                })?;
            let status = response.status().as_u16();
            match status {
                200..=299 => {
                    if let Some(length) = response.body().content_length()
                        && length > limit
                    {
                        bail!("{at} is {}, larger than {}", size(length), size(limit));
                    }
                    let body =
                        Box::new(Body(Capped::new(response.into_body().into_reader(), limit)));
                    return Ok(Got::Found(body, at));
                }
                301 | 302 | 303 | 307 | 308 => {
                    let location = response
                        .headers()
                        .get("location")
                        .and_then(|value| value.to_str().ok())
                        .ok_or_else(|| anyhow!("{at} answered {status} with no Location"))?;
                    let next = at
                        .join(location)
                        .map_err(|err| anyhow!("{at} redirects to {location:?}: {err}"))?;
                    if next.origin() != at.origin() {
                        bail!(
                            "{at} redirects to {next}, on another host or scheme: refused \
                             (it is read only from the site it names)"
                        );
                    }
                    at = next;
                }
                404 | 410 => return Ok(Got::Missing(status)),
                _ => bail!("{at} answered {}", answer(response, FOR_EXCERPT)),
            }
        }
        bail!("{url}: more than {MAX_REDIRECTS} redirects")
    }

    /// POSTs `json` to `url`; any answer is returned, only a failure to get one is an
    /// error.
    pub fn post_json(&self, url: &Url, json: &[u8]) -> Result<Answer> {
        self.post(url, "application/json; charset=utf-8", json, FOR_EXCERPT)
    }

    /// POSTs `body` of `content_type` to `url`, reading at most `limit` bytes of the answer;
    /// any answer is returned, only a failure to get one is an error.
    pub fn post(&self, url: &Url, content_type: &str, body: &[u8], limit: u64) -> Result<Answer> {
        let response = self
            .agent
            .post(url.as_str())
            .content_type(content_type)
            .send(body)
            .map_err(|err| anyhow!("cannot post to {url}: {err}"))?;
        Ok(answer(response, limit))
    }

    /// PUTs nothing at `url` with `authorization`, reading at most `limit` bytes of the
    /// answer; any answer is returned, only a failure to get one is an error.
    pub fn put_empty(&self, url: &Url, authorization: &str, limit: u64) -> Result<Answer> {
        let response = self
            .agent
            .put(url.as_str())
            .header("Authorization", authorization)
            .send_empty()
            .map_err(|err| anyhow!("cannot put to {url}: {err}"))?;
        Ok(answer(response, limit))
    }
}

/// Sends a request with `send`, again after a 429 or 5xx (waiting as asked, or longer each
/// time), at most `TRIES` times; `what` names the server in the notes.
pub fn retrying(
    what: &str,
    report: &Report,
    mut send: impl FnMut() -> Result<Answer>,
) -> Result<Answer> {
    let mut try_number = 1;
    loop {
        let answer = send()?;
        let busy = answer.status == 429 || answer.status >= 500;
        if !busy || try_number == TRIES {
            return Ok(answer);
        }
        let wait = answer
            .retry_after
            .unwrap_or(1 << (try_number - 1))
            .min(MAX_WAIT);
        report.note(format!(
            "{what} answered {}: trying again in {wait} s",
            answer.status
        ));
        std::thread::sleep(Duration::from_secs(wait));
        try_number += 1;
    }
}

/// The seconds a `Retry-After` value asks to wait at `now`: a number of seconds, or an HTTP
/// date (RFC 9110 says a sender writes `Sun, 06 Nov 1994 08:49:37 GMT`, which is RFC 2822's
/// form; the obsolete forms are not worth a parser). A date gone by asks for no wait.
fn retry_after(value: &str, now: OffsetDateTime) -> Option<u64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse() {
        return Some(seconds);
    }
    let date = OffsetDateTime::parse(value, &Rfc2822).ok()?;
    let wait = (date - now).whole_seconds();
    Some(u64::try_from(wait).unwrap_or(0))
}

/// The status, `Retry-After`, and the body of `response` up to `limit` bytes (none when it
/// cannot be read).
fn answer(response: ureq::http::Response<ureq::Body>, limit: u64) -> Answer {
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| retry_after(value, OffsetDateTime::now_utc()));
    let mut body = Vec::new();
    if response
        .into_body()
        .into_reader()
        .take(limit)
        .read_to_end(&mut body)
        .is_err()
    {
        body.clear();
    }
    let text = String::from_utf8_lossy(&body[..body.len().min(FOR_EXCERPT as usize)]);
    let excerpt = report::shown(&text.split_whitespace().collect::<Vec<_>>().join(" "));
    Answer {
        status,
        retry_after,
        body,
        excerpt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn retry_after_is_seconds_or_an_http_date() {
        let now = datetime!(2015-10-21 07:28:00 UTC);
        for (value, wait) in [
            ("120", Some(120)),
            (" 0 ", Some(0)),
            ("Wed, 21 Oct 2015 07:28:30 GMT", Some(30)),
            ("Wed, 21 Oct 2015 08:28:00 GMT", Some(3600)),
            // Gone by: no wait.
            ("Wed, 21 Oct 2015 07:27:00 GMT", Some(0)),
            ("Tue, 20 Oct 2015 07:28:00 GMT", Some(0)),
            ("-1", None),
            ("soon", None),
            ("Wednesday, 21-Oct-15 07:28:30 GMT", None),
            ("", None),
        ] {
            assert_eq!(retry_after(value, now), wait, "{value:?}");
        }
    }
}
