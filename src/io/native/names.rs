//! Windows' rules for names, as functions of the name alone (compiled for Windows, and for
//! the tests on every platform): which names Win32 opens as a device or trims before the
//! lookup, so that opening them would not reach the file a directory lists, and which
//! names the file system takes for one.

use std::collections::HashMap;

/// The device Win32 opens for `name`, if any: `CON`, `PRN`, `AUX`, `NUL`, `COM1`–`COM9`,
/// `LPT1`–`LPT9` (and `COM¹`–`COM³`, `LPT¹`–`LPT³`), in any case, also followed by spaces,
/// an extension or a stream (`nul.html`, `Con .txt`, `aux:x`). Windows 10 and Wine open the
/// device for all of them; Windows 11 only for the bare name, but a site built there is read
/// on older systems too (and Git for Windows refuses to check such a path out).
pub fn device(name: &str) -> Option<&str> {
    let end = name.find(['.', ':']).unwrap_or(name.len());
    let stem = name[..end].trim_end_matches(' ');
    let mut chars = stem.chars();
    let prefix: String = chars.by_ref().take(3).collect();
    let rest = chars.as_str();
    let upper = prefix.to_ascii_uppercase();
    let device = matches!(
        (upper.as_str(), rest),
        ("CON" | "PRN" | "AUX" | "NUL", "")
            | (
                "COM" | "LPT",
                "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9"
            )
            | ("COM" | "LPT", "\u{b9}" | "\u{b2}" | "\u{b3}")
    );
    device.then_some(stem)
}

/// Whether Win32 drops the end of `name` before looking it up: it trims the dots and spaces
/// that end a path (`a.html.` opens `a.html`). `.` and `..` are no names of files.
pub fn trimmed(name: &str) -> bool {
    name.ends_with(['.', ' ']) && name != "." && name != ".."
}

/// `name` as the file system compares it, ignoring case: each character's simple uppercase
/// (as NTFS's table of upper cases maps each UTF-16 unit; `ß` stays itself).
pub fn fold(name: &str) -> String {
    name.chars()
        .map(|c| {
            let mut upper = c.to_uppercase();
            match (upper.next(), upper.next()) {
                (Some(one), None) => one,
                _ => c,
            }
        })
        .collect()
}

/// `name` as the file system compares it, spelt in lower case where it is ASCII: the
/// outputs' names (ASCII extensions, `-1`, `.b`) are compared with it as written.
pub fn key(name: &str) -> String {
    let mut key = fold(name);
    key.make_ascii_lowercase();
    key
}

/// The groups of `names` (by index) that differ only in case, each in order, ordered by
/// their first name: names a case-sensitive folder (Wine's on a Unix file system, NTFS's
/// with case sensitivity on, a Samba share) lists apart, and a case-insensitive lookup may
/// take for one another.
pub fn clashes<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Vec<Vec<usize>> {
    let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
    for (n, name) in names.into_iter().enumerate() {
        by_key.entry(fold(name.as_ref())).or_default().push(n);
    }
    let mut groups: Vec<Vec<usize>> = by_key.into_values().filter(|g| g.len() > 1).collect();
    groups.sort_unstable();
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_in_any_case_with_an_extension_spaces_or_a_stream() {
        let devices = [
            ("CON", "CON"),
            ("nul", "nul"),
            ("nul.html", "nul"),
            ("Aux.tar.gz", "Aux"),
            ("prn .txt", "prn"),
            ("con  ", "con"),
            ("aux:stream", "aux"),
            ("com1.html", "com1"),
            ("LPT9", "LPT9"),
            ("com\u{b9}.html", "com\u{b9}"),
            ("lpt\u{b3}", "lpt\u{b3}"),
            ("NUL.", "NUL"),
        ];
        for (name, device_part) in devices {
            assert_eq!(device(name), Some(device_part), "{name:?}");
        }
        let files = [
            "console.html",
            "nul-page.html",
            "anul.html",
            "com0.html",
            "com10.html",
            "lpt.html",
            "com",
            "con_.html",
            " con.html",
            "conin$",
            "",
            ".nul",
            "index.html",
            "\u{e9}con.html",
            "com\u{b9}\u{b9}",
            "co\u{301}n",
        ];
        for name in files {
            assert_eq!(device(name), None, "{name:?}");
        }
    }

    #[test]
    fn names_ending_in_a_dot_or_a_space_are_trimmed() {
        for name in ["a.html.", "a.html ", "a. .", "dir.", "...", " "] {
            assert!(trimmed(name), "{name:?}");
        }
        for name in ["a.html", ".", "..", ".hidden", " a", "a .html"] {
            assert!(!trimmed(name), "{name:?}");
        }
    }

    #[test]
    fn names_that_differ_only_in_case_clash() {
        assert_eq!(fold("Sitemap.XML"), fold("sitemap.xml"));
        assert_eq!(fold("\u{c9}t\u{e9}.html"), fold("\u{e9}T\u{c9}.HTML"));
        assert_eq!(fold("\u{3a3}"), fold("\u{3c3}"));
        // No simple upper case: ß is not SS.
        assert_ne!(fold("stra\u{df}e"), fold("STRASSE"));
        assert_eq!(key("SITEMAP-1.B.XML"), "sitemap-1.b.xml");
        assert_eq!(key("\u{c9}t\u{e9}.XML"), key("\u{e9}T\u{c9}.xml"));
        assert_eq!(key("\u{e9}.xml"), "\u{c9}.xml");
        // An ASCII name in lower case is its own key (`case_key` makes no copy of it).
        for name in [
            "index.html",
            "a/b-c_d.1.html",
            "sitemap-1.b.xml",
            "",
            "~$[1]",
        ] {
            assert_eq!(key(name), name);
        }
        let names = [
            "A.html", "B.html", "a.html", "b", "c.html", "\u{c9}", "\u{e9}", "a.HTML",
        ];
        assert_eq!(clashes(names), vec![vec![0, 2, 7], vec![5, 6]]);
        assert!(clashes(["a", "b", "ab"]).is_empty());
    }
}
