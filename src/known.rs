//! What a run knows of a page's file without reading it again, handed from one stage to
//! another: the walk stamps each page, the last run's state recorded a stamp and a
//! fingerprint, and the scan reads a page whole only when they say it may have changed.

/// What a stat says of a page, as git's index keeps it: an edit that keeps the size and sets
/// the mtime back (`touch -d`, `SOURCE_DATE_EPOCH`, Nix) still changes the ctime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub size: u64,
    /// Nanoseconds since the epoch.
    pub mtime: i128,
    pub ctime: i128,
    pub inode: u64,
}

/// The first 60 bits of the BLAKE3 hash of a page's bytes: the same bytes give the same
/// digest, by definition, so a page that a rebuild rewrote byte for byte need not be
/// tokenized again for it (hashing runs at several GB/s, tokenizing at a tenth of that).
/// 60 bits keep the state small (8 bytes a page in memory; 15 hex digits and a space, 16
/// bytes, in the file); a changed page keeps its old fingerprint with a chance of 2^-60.
pub type Fingerprint = u64;

/// What an earlier run recorded of a page.
#[derive(Debug, Clone, Copy)]
pub struct Known {
    pub fingerprint: Fingerprint,
    pub digest: blake3::Hash,
}
