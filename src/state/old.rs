//! The state of the last run as a run holds it: compact, found by key in a read or two, each
//! record taken once by the page that has its key.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Result, bail};
use hashbrown::HashTable;

use crate::known::{Fingerprint, Known, Stamp};
use crate::outputs::changes::Kind;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub lastmod: Option<String>,
    pub digest: blake3::Hash,
    /// None when the file might still change within its timestamps' resolution, as git
    /// does for "racily clean" files: it is read again next time.
    pub stamp: Option<Stamp>,
    /// How many runs in a row, the one that wrote it included, re-dated the page.
    pub streak: u32,
    /// The fingerprint of the page's bytes, when it was read whole.
    pub fingerprint: Option<Fingerprint>,
}

/// What --state records of a dated page, for the new state and the changes file.
pub struct Recorded {
    /// Added or re-dated; None for a page that kept its date.
    pub change: Option<Kind>,
    /// The page's record under its key; None when a page before it had the key, as a
    /// state holds a key once.
    pub record: Option<(String, Record)>,
}

/// A record as read, its date in the line.
pub(super) struct Parsed<'l> {
    pub lastmod: Option<&'l str>,
    pub digest: blake3::Hash,
    pub stamp: Option<Stamp>,
    pub streak: u32,
    pub fingerprint: Option<Fingerprint>,
}

/// The state read at the start of a run, compact (a first run at a million URLs keeps it
/// in memory with the pages' dates being made): its records sorted by a hash of their key,
/// the keys in one buffer, each date once.
#[derive(Debug, Default)]
pub struct OldState {
    records: Vec<Old>,
    /// For each value of a hash's top bits (`64 - shift` of them, about as many values as
    /// records), where its records begin in `records`, and then where the last ends: a
    /// lookup reads a record or two, not the twenty of a binary search (each a cache miss
    /// in a large state). Empty until `finish`.
    starts: Vec<u32>,
    shift: u32,
    keys: String,
    pub(super) dates: Vec<Box<str>>,
    /// Whether the digests were made with today's rules and so can be compared.
    pub comparable: bool,
}

#[derive(Debug)]
struct Old {
    hash: u64,
    key_at: usize,
    key_len: u32,
    /// In `dates`; `NO_DATE` for none.
    lastmod: u32,
    /// Taken by a page of this run (`OldState::take`): atomic, so that the state can be
    /// read on the threads that prepare pages while the run takes its records.
    taken: AtomicBool,
    stamped: bool,
    /// Meaningful when `stamped`.
    stamp: Stamp,
    streak: u32,
    /// Meaningful when `fingerprinted`.
    fingerprint: Fingerprint,
    fingerprinted: bool,
    digest: [u8; 32],
}

impl Old {
    fn taken(&self) -> bool {
        self.taken.load(Ordering::Relaxed)
    }
}

const NO_DATE: u32 = u32::MAX;

/// What `OldState::take` finds for a key.
#[derive(Debug, PartialEq, Eq)]
pub enum Take {
    /// The state has no record of it.
    Unknown,
    /// Another page of this run took its record.
    Again,
    Record(Record),
}

fn key_hash(key: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    key.hash(&mut hasher);
    hasher.finish()
}

impl OldState {
    /// A state with no records, comparable: a first run's.
    pub fn empty() -> OldState {
        OldState::reading(true)
    }

    /// A state about to be read, its records pushed: `comparable` when its digests were
    /// made with today's rules.
    pub(super) fn reading(comparable: bool) -> OldState {
        OldState {
            comparable,
            ..OldState::default()
        }
    }

    fn find(&self, key: &str) -> Option<usize> {
        let hash = key_hash(key);
        let bucket = usize::try_from(hash >> self.shift).ok()?;
        let (&from, &to) = (self.starts.get(bucket)?, self.starts.get(bucket + 1)?);
        (from as usize..to as usize).find(|&i| {
            let old = &self.records[i];
            old.hash == hash && self.key(old) == key
        })
    }

    fn key(&self, old: &Old) -> &str {
        &self.keys[old.key_at..old.key_at + old.key_len as usize]
    }

    fn record(&self, old: &Old) -> Record {
        Record {
            lastmod: self.dates.get(old.lastmod as usize).map(|d| d.to_string()),
            digest: blake3::Hash::from_bytes(old.digest),
            stamp: old.stamped.then_some(old.stamp),
            streak: old.streak,
            fingerprint: old.fingerprinted.then_some(old.fingerprint),
        }
    }

    /// None if the state has no record of `key`; else the stamp recorded for it, if any,
    /// and its fingerprint with its digest, if it has one.
    pub fn seen(&self, key: &str) -> Option<(Option<Stamp>, Option<Known>)> {
        let old = &self.records[self.find(key)?];
        let known = old.fingerprinted.then(|| Known {
            fingerprint: old.fingerprint,
            digest: blake3::Hash::from_bytes(old.digest),
        });
        Some((old.stamped.then_some(old.stamp), known))
    }

    /// The record of `key`, once: a page of this run takes it.
    pub fn take(&self, key: &str) -> Take {
        let Some(i) = self.find(key) else {
            return Take::Unknown;
        };
        let old = &self.records[i];
        if old.taken.swap(true, Ordering::Relaxed) {
            return Take::Again;
        }
        Take::Record(self.record(old))
    }

    /// The records no page of this run took: the removed pages.
    pub fn untaken(&self) -> usize {
        self.records.iter().filter(|old| !old.taken()).count()
    }

    /// The keys of the records no page took (the removed pages), in their order.
    pub fn untaken_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .records
            .iter()
            .filter(|old| !old.taken())
            .map(|old| self.key(old).to_string())
            .collect();
        keys.sort_unstable();
        keys
    }

    /// A state of a published sitemap's URLs (key → lastmod) and no digests: every date is
    /// kept once (it is not `comparable`), and the digests recorded anew.
    pub fn adopted(urls: std::collections::BTreeMap<String, Option<String>>) -> Result<OldState> {
        let mut state = OldState::default();
        let mut seen = Seen::default();
        for (key, lastmod) in urls {
            let record = Parsed {
                lastmod: lastmod.as_deref(),
                digest: blake3::Hash::from_bytes([0; 32]),
                stamp: None,
                streak: 0,
                fingerprint: None,
            };
            state.push(&key, record, &mut seen)?;
        }
        state.finish();
        Ok(state)
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Every record, in no particular order.
    pub fn records(&self) -> impl Iterator<Item = (&str, Record)> {
        self.records
            .iter()
            .map(|old| (self.key(old), self.record(old)))
    }

    /// Adds a record while the state is read, refusing a key given before (as it is read,
    /// so that a state repeating one record is not held whole first): `finish` must follow.
    /// `seen` holds the records pushed, `dates` the dates in `self.dates` and where.
    pub(super) fn push(&mut self, key: &str, record: Parsed, seen: &mut Seen) -> Result<()> {
        let hash = key_hash(key);
        let OldState { records, keys, .. } = &*self;
        let entry = seen.keys.entry(
            hash,
            |&i| {
                let old = &records[i as usize];
                &keys[old.key_at..old.key_at + old.key_len as usize] == key
            },
            |&i| records[i as usize].hash,
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(_) => bail!("it repeats the URL /{key}"),
            hashbrown::hash_table::Entry::Vacant(place) => {
                place.insert(records.len() as u32);
            }
        }
        let dates = &mut seen.dates;
        let lastmod = match record.lastmod {
            None => NO_DATE,
            Some(date) => match dates.get(date) {
                Some(&at) => at,
                None => {
                    let at = self.dates.len() as u32;
                    self.dates.push(date.into());
                    dates.insert(date.into(), at);
                    at
                }
            },
        };
        self.records.push(Old {
            hash,
            key_at: self.keys.len(),
            key_len: key.len() as u32,
            lastmod,
            taken: AtomicBool::new(false),
            stamped: record.stamp.is_some(),
            stamp: record.stamp.unwrap_or(Stamp {
                size: 0,
                mtime: 0,
                ctime: 0,
                inode: 0,
            }),
            streak: record.streak,
            fingerprint: record.fingerprint.unwrap_or(0),
            fingerprinted: record.fingerprint.is_some(),
            digest: *record.digest.as_bytes(),
        });
        self.keys.push_str(key);
        Ok(())
    }

    /// Sorts the records for `find`.
    pub(super) fn finish(&mut self) {
        let OldState { records, keys, .. } = self;
        let key = |old: &Old| &keys[old.key_at..old.key_at + old.key_len as usize];
        records.sort_unstable_by(|a, b| a.hash.cmp(&b.hash).then_with(|| key(a).cmp(key(b))));
        records.shrink_to_fit();
        keys.shrink_to_fit();
        // At least one bit, so that the shift stays below 64.
        let bits = records.len().max(2).next_power_of_two().trailing_zeros();
        let shift = u64::BITS - bits;
        let mut starts = Vec::with_capacity((1 << bits) + 1);
        let mut at = 0;
        for bucket in 0..=1u64 << bits {
            while records
                .get(at)
                .is_some_and(|old| old.hash >> shift < bucket)
            {
                at += 1;
            }
            starts.push(at as u32);
        }
        self.starts = starts;
        self.shift = shift;
    }
}

/// What `OldState::push` remembers while a state is read.
#[derive(Default)]
pub(super) struct Seen {
    /// The records pushed, by the hash of their key.
    keys: HashTable<u32>,
    /// Each date and where it is in `OldState::dates`.
    pub(super) dates: HashMap<Box<str>, u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_of_a_state_of_any_size_is_found() {
        for size in [0, 1, 2, 3, 5, 1000, 4097] {
            let urls = (0..size)
                .map(|n| (format!("p{n}.html"), None))
                .collect::<std::collections::BTreeMap<_, _>>();
            let state = OldState::adopted(urls).unwrap();
            for n in 0..size {
                let key = format!("p{n}.html");
                assert!(
                    matches!(state.take(&key), Take::Record(_)),
                    "{key} of {size}"
                );
            }
            for absent in ["", "p.html", "p-1.html", &format!("p{size}.html")] {
                assert_eq!(state.take(absent), Take::Unknown, "{absent} of {size}");
            }
            assert_eq!(state.untaken(), 0);
        }
    }
}
