//! JSON-LD as the digest counts it: the objects of a block, their types, and URLs without
//! their hosts.

/// The objects of a JSON-LD block: itself, the items of an array, those of an `@graph`.
pub fn objects(value: &serde_json::Value) -> Vec<&serde_json::Map<String, serde_json::Value>> {
    let mut objects = Vec::new();
    match value {
        serde_json::Value::Array(items) => {
            for item in items {
                objects.extend(self::objects(item));
            }
        }
        serde_json::Value::Object(object) => match object.get("@graph") {
            Some(graph) => objects.extend(self::objects(graph)),
            None => objects.push(object),
        },
        _ => {}
    }
    objects
}

/// The names of a JSON-LD `@type` (one, or several).
pub(super) fn types(kind: &serde_json::Value) -> impl Iterator<Item = &str> {
    let list: Vec<&str> = match kind {
        serde_json::Value::String(one) => vec![one.as_str()],
        serde_json::Value::Array(many) => many.iter().filter_map(|t| t.as_str()).collect(),
        _ => Vec::new(),
    };
    list.into_iter()
}

/// Every absolute http(s) URL in a JSON-LD value without its scheme and host.
pub(super) fn strip_hosts(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) => {
            let stripped = without_host(text.as_bytes());
            if stripped.len() != text.len() {
                *text = String::from_utf8_lossy(stripped).into_owned();
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_hosts),
        serde_json::Value::Object(object) => object.values_mut().for_each(strip_hosts),
        _ => {}
    }
}

/// `/path?q` of `https://host/path?q` (and of `//host/path?q`); other URLs as they are.
pub(super) fn without_host(url: &[u8]) -> &[u8] {
    let rest = [b"https://".as_slice(), b"http://", b"//"]
        .iter()
        .find_map(|prefix| {
            url.get(..prefix.len())
                .filter(|start| start.eq_ignore_ascii_case(prefix))
                .map(|_| &url[prefix.len()..])
        });
    match rest {
        Some(rest) => &rest[rest.iter().position(|&b| b == b'/').unwrap_or(rest.len())..],
        None => url,
    }
}
