//! `--google-submit`: the sitemap submitted to Google Search Console as a service account,
//! against a token endpoint and an API the test starts on the loopback address. The token
//! endpoint checks the JWT's claims and its RS256 signature with the public key of the test
//! service account (`fixtures/google`, a key made for these tests only).

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{RSA_PKCS1_2048_8192_SHA256, UnparsedPublicKey};
use serde_json::Value;

use crate::harness::{BASE, Cmd, Run, Site, fixture_dir};
use crate::serve::{Reply, Request, Server};
use crate::validate;

const EMAIL: &str = "sitemapgen-test@sitemapgen-test.iam.gserviceaccount.com";
const TOKEN: &str = "ya29.sitemapgen-test-access-token-0451";
const SITE: &str = "https%3A%2F%2Fexample.com%2F";
const SITEMAP: &str = "https%3A%2F%2Fexample.com%2Fsitemap.xml";

/// Why the token endpoint refuses a JWT, if it does: its claims or its signature.
fn check_jwt(request: &Request) -> Result<(), String> {
    let form = String::from_utf8_lossy(&request.body).into_owned();
    let field = |name: &str| {
        form.split('&')
            .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
            .map(String::from)
    };
    if field("grant_type").as_deref()
        != Some("urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer")
    {
        return Err(format!("grant_type in {form}"));
    }
    let jwt = field("assertion").ok_or("no assertion")?;
    let parts: Vec<&str> = jwt.split('.').collect();
    let [header, claims, signature] = parts[..] else {
        return Err("not three parts".into());
    };
    let decode = |part: &str| URL_SAFE_NO_PAD.decode(part).map_err(|e| e.to_string());
    let public_key = fs::read(fixture_dir("google").join("public-key.der")).unwrap();
    UnparsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, public_key)
        .verify(format!("{header}.{claims}").as_bytes(), &decode(signature)?)
        .map_err(|_| "Invalid JWT Signature.".to_string())?;
    let header: Value = serde_json::from_slice(&decode(header)?).unwrap();
    let claims: Value = serde_json::from_slice(&decode(claims)?).unwrap();
    let aud = format!("http://{}/token", request.header("host").unwrap());
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let iat = claims["iat"].as_i64().unwrap_or_default();
    let exp = claims["exp"].as_i64().unwrap_or_default();
    let good = header["alg"] == "RS256"
        && header["typ"] == "JWT"
        && header["kid"] == "0123456789abcdef0123456789abcdef01234567"
        && claims["iss"] == EMAIL
        && claims["scope"] == "https://www.googleapis.com/auth/webmasters"
        && claims["aud"] == aud.as_str()
        && (now - 60..=now + 1).contains(&iat)
        && iat < exp
        && exp - iat <= 3600;
    if good {
        Ok(())
    } else {
        Err(format!("claims {header} {claims}"))
    }
}

/// Google, on the loopback address: the token endpoint at `/token`, which answers 503 to
/// its first `busy` requests, and the Search Console API under `/webmasters/v3/`, which
/// answers each submission with the next of `answers` (the last one again once they run
/// out; `{authorization}` in a body echoes the request's header).
fn google(busy: usize, answers: Vec<(u16, &'static str)>) -> Server {
    google_giving(TOKEN.to_string(), busy, answers)
}

/// The same, giving the access token `token`.
fn google_giving(token: String, busy: usize, answers: Vec<(u16, &'static str)>) -> Server {
    let (tokens, submissions) = (AtomicUsize::new(0), AtomicUsize::new(0));
    Server::start(move |request| {
        if request.path == "/token" {
            if tokens.fetch_add(1, Ordering::SeqCst) < busy {
                return Reply::status(503, "busy").with_header("Retry-After", "0");
            }
            return match check_jwt(request) {
                Ok(()) => Reply::status(
                    200,
                    format!(
                        r#"{{"access_token":"{token}","expires_in":3599,"token_type":"Bearer"}}"#
                    ),
                ),
                Err(why) => Reply::status(
                    400,
                    format!(r#"{{"error":"invalid_grant","error_description":"{why}"}}"#),
                ),
            };
        }
        let authorization = request.header("authorization").unwrap_or_default();
        if authorization != format!("Bearer {token}") {
            return Reply::status(401, "no token");
        }
        let n = submissions.fetch_add(1, Ordering::SeqCst);
        let (status, body) = answers[n.min(answers.len() - 1)];
        Reply::status(status, body.replace("{authorization}", authorization))
            .with_header("Retry-After", "0")
    })
}

/// The test service account's key (`other` for another key under the same name), with its
/// token endpoint on `server`.
fn key(site: &Site, server: &Server, other: bool) -> PathBuf {
    let name = if other {
        "other-service-account.json"
    } else {
        "service-account.json"
    };
    let mut json: Value =
        serde_json::from_slice(&fs::read(fixture_dir("google").join(name)).unwrap()).unwrap();
    json["token_uri"] = server.url("/token").into();
    let path = site.outside().join(name);
    fs::write(&path, json.to_string()).unwrap();
    path
}

/// A site whose sitemap a run wrote (and which the test validates).
fn built() -> Site {
    let site = Site::with_pages(&["index.html", "a.html"]);
    site.run(&[]).success();
    validate::sitemap(&site.sitemap_path(), BASE);
    site
}

fn submit(site: &Site, server: &Server, args: &[&str]) -> Run {
    site.command(&["--google-submit", "--google-key-file"])
        .arg(key(site, server, false))
        .args(["--google-endpoint", &server.url("/webmasters/v3/")])
        .args(args)
        .run()
}

/// The paths the API was asked to PUT.
fn submitted(server: &Server) -> Vec<String> {
    let requests = server.requests();
    let puts: Vec<&Request> = requests.iter().filter(|r| r.path != "/token").collect();
    assert!(puts.iter().all(|r| r.method == "PUT"), "{puts:?}");
    puts.iter().map(|r| r.path.clone()).collect()
}

fn token_requests(server: &Server) -> usize {
    let requests = server.requests();
    let tokens: Vec<&Request> = requests.iter().filter(|r| r.path == "/token").collect();
    for request in &tokens {
        assert_eq!(request.method, "POST");
        assert_eq!(
            request.header("content-type"),
            Some("application/x-www-form-urlencoded")
        );
    }
    tokens.len()
}

#[test]
fn the_sitemap_is_submitted_with_a_token_from_a_signed_jwt() {
    let site = built();
    let server = google(0, vec![(204, "")]);
    submit(&site, &server, &[]).success().stderr_has(&[&format!(
        "note: submitted {BASE}sitemap.xml to Google Search Console, property {BASE} \
             (204: accepted)"
    )]);
    assert_eq!(token_requests(&server), 1);
    assert_eq!(
        submitted(&server),
        [format!("/webmasters/v3/sites/{SITE}/sitemaps/{SITEMAP}")]
    );
    // The key from the environment, a Domain property, a sitemap elsewhere in DIR (an
    // index when split: it keeps the name -o gives).
    let server = google(0, vec![(200, "")]);
    let json = fs::read_to_string(key(&site, &server, false)).unwrap();
    site.page("docs/index.html");
    site.run(&["-o", "site/docs/map.xml", "--max-urls", "1"])
        .success();
    validate::index(&site.path("docs/map.xml"), BASE);
    site.command(&["--google-submit", "--google-key-env", "TEST_GOOGLE_KEY"])
        .env("TEST_GOOGLE_KEY", &json)
        .args(["--google-endpoint", &server.url("/webmasters/v3")])
        .args(["--google-property", "sc-domain:example.com"])
        .args(["-o", "site/docs/map.xml"])
        .run()
        .success()
        .stderr_has(&["submitted https://example.com/docs/map.xml"]);
    assert_eq!(
        submitted(&server),
        [
            "/webmasters/v3/sites/sc-domain%3Aexample.com/sitemaps/https%3A%2F%2Fexample.com%2Fdocs%2Fmap.xml"
        ]
    );
}

#[test]
fn a_key_the_token_endpoint_does_not_know_is_a_clear_error() {
    let site = built();
    let server = google(0, vec![(204, "")]);
    site.command(&["--google-submit", "--google-key-file"])
        .arg(key(&site, &server, true))
        .args(["--google-endpoint", &server.url("/webmasters/v3/")])
        .run()
        .expect_code(1)
        .stderr_has(&[
            &format!(
                "error: the token endpoint {} refused the service account's JWT: 400 \
                 invalid_grant (Invalid JWT Signature.)",
                server.url("/token")
            ),
            &format!("hint: the key of {EMAIL} may have been deleted or disabled"),
            "or this machine's clock is off",
        ]);
    assert_eq!(token_requests(&server), 1);
    assert!(submitted(&server).is_empty());
}

#[test]
fn search_console_refusals_say_what_to_do_and_busy_answers_are_retried() {
    const OWNER: &str = r#"{"error":{"code":403,"message":"User does not have sufficient permission for site 'https://example.com/'.","status":"PERMISSION_DENIED"}}"#;
    const DISABLED: &str = r#"{"error":{"code":403,"message":"Google Search Console API has not been used in project 1 before or it is disabled.","status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"SERVICE_DISABLED"}]}}"#;
    const LEGACY: &str = r#"{"error":{"code":403,"errors":[{"reason":"accessNotConfigured"}],"message":"Access Not Configured."}}"#;
    const MISSING: &str = r#"{"error":{"code":404,"message":"Requested entity was not found."}}"#;
    let site = built();
    // The API's answers, the exit status, what stderr holds.
    type Case = (Vec<(u16, &'static str)>, i32, Vec<String>);
    let cases: Vec<Case> = vec![
        (
            vec![(403, OWNER)],
            1,
            vec![
                format!(
                    "answered 403 to the submission of {BASE}sitemap.xml (the service account \
                     {EMAIL} is not an owner of the property {BASE}): User does not have"
                ),
                format!(
                    "hint: in Search Console, open the property, Settings › Users and \
                     permissions › Add user: {EMAIL}, permission Owner"
                ),
            ],
        ),
        (
            vec![(403, DISABLED)],
            1,
            vec![
                "(the Google Search Console API is not enabled in the service account's \
                 project sitemapgen-test)"
                    .into(),
                "hint: enable it: https://console.cloud.google.com/apis/library/\
                 searchconsole.googleapis.com?project=sitemapgen-test"
                    .into(),
            ],
        ),
        (
            vec![(403, LEGACY)],
            1,
            vec!["the Google Search Console API is not enabled".into()],
        ),
        (
            vec![(404, MISSING)],
            1,
            vec![
                format!(
                    "answered 404 to the submission of {BASE}sitemap.xml (Search Console has \
                     no property {BASE}): Requested entity was not found."
                ),
                "hint: a Domain property is named sc-domain:example.com: if the site's is one, name it with --google-property".into(),
            ],
        ),
        (
            vec![(429, "slow down"), (204, "")],
            0,
            vec![
                "answered 429: trying again in 0 s".into(),
                "(204: accepted)".into(),
            ],
        ),
        (
            vec![(503, "busy")],
            1,
            vec!["answered 503 to the submission of https://example.com/sitemap.xml (again after retries): busy".into()],
        ),
    ];
    for (answers, code, expected) in cases {
        let tries = if answers[0].0 == 503 {
            4
        } else {
            answers.len()
        };
        let server = google(0, answers.clone());
        let run = submit(&site, &server, &[]);
        assert_eq!(run.code(), code, "{answers:?}: {}", run.stderr());
        let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
        run.stderr_has(&expected);
        assert_eq!(submitted(&server).len(), tries, "{answers:?}");
        assert_eq!(token_requests(&server), 1, "one token for all tries");
    }
}

#[test]
fn the_token_endpoint_is_retried_when_busy_and_the_token_never_shown() {
    let site = built();
    let server = google(2, vec![(204, "")]);
    submit(&site, &server, &[]).success().stderr_has(&[
        &format!(
            "the token endpoint {} answered 503: trying again in 0 s",
            server.url("/token")
        ),
        "(204: accepted)",
    ]);
    assert_eq!(token_requests(&server), 3);
    let server = google(4, vec![(204, "")]);
    submit(&site, &server, &[])
        .expect_code(1)
        .stderr_has(&["answered 503: busy (again after retries)"]);
    assert_eq!(token_requests(&server), 4);
    assert!(submitted(&server).is_empty());
    // An API that echoes the request's Authorization in its refusal.
    let server = google(0, vec![(400, "bad request with {authorization}")]);
    submit(&site, &server, &[])
        .expect_code(1)
        .stderr_has(&["answered 400", "bad request with Bearer KEY"])
        .shows_none_of(&[TOKEN.to_string()]);
}

/// Issue 44: an answer that echoes a long token is cut to an excerpt after the token is
/// hidden, not before; a token too short to hide without mangling every message is refused.
#[test]
fn an_echoed_token_is_hidden_before_the_answer_is_cut_and_a_short_one_refused() {
    let site = built();
    let token = format!("ya29.{}", "a0B1c2D3e4".repeat(21) + "f");
    assert_eq!(token.len(), 216);
    let server = google_giving(token.clone(), 0, vec![(400, "bad {authorization}")]);
    let run = submit(&site, &server, &[]);
    run.expect_code(1)
        .stderr_has(&["answered 400", "bad Bearer KEY"]);
    let windows: Vec<String> = (0..token.len() - 16)
        .map(|i| token[i..i + 16].to_string())
        .collect();
    run.shows_none_of(&windows);
    let server = google_giving("e".into(), 0, vec![(204, "")]);
    submit(&site, &server, &[]).expect_code(1).stderr_has(&[
        "sitemapgen: error: the token endpoint",
        "with no usable access_token",
    ]);
    assert!(submitted(&server).is_empty());
}

#[test]
fn a_silent_endpoint_times_out() {
    let site = built();
    for silent in ["/token", "/webmasters/v3/"] {
        let server = Server::start(move |request| {
            if request.path.starts_with(silent) {
                return Reply::Silence(Duration::from_secs(5));
            }
            Reply::status(200, format!(r#"{{"access_token":"{TOKEN}"}}"#))
        });
        let run = submit(&site, &server, &["--http-timeout", "1"]);
        run.expect_code(1).stderr_has(&["timeout"]);
        let verb = if silent == "/token" { "post" } else { "put" };
        run.stderr_has(&[&format!("cannot {verb} to {}", server.url(silent))]);
    }
}

#[test]
fn what_google_submit_needs_is_checked_before_any_request() {
    let site = built();
    let server = google(0, vec![(204, "")]);
    let good = key(&site, &server, false);
    let not_json = site.outside().join("not-json");
    fs::write(
        &not_json,
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAAS\n",
    )
    .unwrap();
    let user = site.outside().join("user.json");
    fs::write(&user, r#"{"type":"authorized_user","client_id":"x"}"#).unwrap();
    let endpoint = server.url("/webmasters/v3/");
    let good = good.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "--google-submit needs the service account's key"),
        (
            vec!["--google-key-env", "SITEMAPGEN_TEST_UNSET"],
            "the environment variable SITEMAPGEN_TEST_UNSET is not set",
        ),
        (
            vec!["--google-key-file", not_json.to_str().unwrap()],
            "does not hold a service account's JSON key",
        ),
        (
            vec!["--google-key-file", user.to_str().unwrap()],
            "is a key of type \"authorized_user\", not a service account's",
        ),
        (
            vec![
                "--google-key-file",
                good,
                "--google-property",
                "example.com",
            ],
            "--google-property \"example.com\" is not a Search Console property",
        ),
        (
            vec![
                "--google-key-file",
                good,
                "--google-property",
                "https://example.org/",
            ],
            "the sitemap https://example.com/sitemap.xml is not in the Search Console property https://example.org/",
        ),
        (
            vec!["--google-key-file", good, "-o", "site/missing.xml"],
            "missing.xml is not there: --google-submit submits the one a run wrote",
        ),
        (
            vec!["--google-key-file", good, "-o", "-"],
            "--google-submit submits a sitemap file, and -o - names none",
        ),
        (
            vec![
                "--google-key-file",
                good,
                "--google-endpoint",
                "http://example.com/v3/",
            ],
            "--google-endpoint http://example.com/v3/ is not https",
        ),
        (
            vec!["--google-key-file", good, "--indexnow-submit"],
            "cannot be used with",
        ),
    ];
    for (args, expected) in cases {
        let mut command = site.command(&["--google-submit"]);
        if !args.contains(&"--google-endpoint") {
            command.args(["--google-endpoint", &endpoint]);
        }
        let run = command.args(&args).run();
        assert_eq!(run.code(), 2, "{args:?}: {}", run.stderr());
        run.stderr_has(&[expected]);
        assert!(
            !run.stderr().contains("MIIEvQ"),
            "no part of a key is shown"
        );
    }
    // A token endpoint in clear over the network.
    let mut json: Value = serde_json::from_str(&fs::read_to_string(good).unwrap()).unwrap();
    json["token_uri"] = "http://oauth2.example.com/token".into();
    fs::write(good, json.to_string()).unwrap();
    site.command(&[
        "--google-submit",
        "--google-endpoint",
        &endpoint,
        "--google-key-file",
        good,
    ])
    .run()
    .expect_code(2)
    .stderr_has(&["its token_uri http://oauth2.example.com/token is not https"]);
    assert!(server.requests().is_empty(), "no request was made");
    // DIR is needed.
    Cmd::new()
        .args(["--google-submit", "-b", BASE, "--google-key-file", good])
        .current_dir(site.outside())
        .run()
        .expect_code(2)
        .stderr_has(&["--google-submit submits the sitemap in DIR: name DIR"]);
}
