//! What counts of a page, gathered as it goes by and hashed: words each followed by a NUL
//! (whitespace does not count), URLs after a mark.

/// One way of counting the page: its main region, or its whole body. What counts is
/// gathered and hashed in large pieces (BLAKE3 is fast on long input, slow on words).
pub(super) struct Stream {
    hasher: blake3::Hasher,
    pending: Vec<u8>,
}

/// Bytes gathered before they are hashed.
const PENDING: usize = 16 * 1024;

/// Words being written, each followed by a NUL, into room for all the text and a NUL.
struct Words<'o> {
    out: &'o mut [u8],
    len: usize,
    in_word: bool,
}

/// A u64 with `byte` in each of its bytes.
const fn each(byte: u8) -> u64 {
    u64::from_ne_bytes([byte; 8])
}

const HIGH: u64 = each(0x80);

impl Words<'_> {
    fn byte(&mut self, byte: u8) {
        let space = byte.is_ascii_whitespace();
        // Whitespace is written as a NUL, kept only where it ends a word: the next byte
        // overwrites the others. So what lies at `len` is always a NUL.
        self.out[self.len] = if space { 0 } else { byte };
        self.len += usize::from(!space || self.in_word);
        self.in_word = !space;
    }

    /// Eight bytes at once when they are words and single spaces, a space not first
    /// unless it ends a word; else byte by byte.
    fn block(&mut self, block: [u8; 8]) {
        let x = u64::from_le_bytes(block);
        // The high bit of each byte above a space; of each space (exact: no carry crosses
        // a byte).
        let above = (((x & !HIGH) + each(0x7f - b' ')) | x) & HIGH;
        let y = x ^ each(b' ');
        let space = !(((y & !HIGH) + !HIGH) | y) & HIGH;
        let after_space = (space << 8) | if self.in_word { 0 } else { 0x80 };
        if above | space != HIGH || space & after_space != 0 {
            block.into_iter().for_each(|byte| self.byte(byte));
            return;
        }
        let spaces = (space >> 7) * 0xff;
        self.out[self.len..self.len + 8].copy_from_slice(&(x & !spaces).to_le_bytes());
        self.len += 8;
        self.in_word = space >> 63 == 0;
    }
}

impl Stream {
    pub(super) fn new() -> Self {
        Stream {
            hasher: blake3::Hasher::new(),
            pending: Vec::new(),
        }
    }

    /// Each word, then a NUL. Eight bytes at a time where they hold only single spaces
    /// between other bytes (word by word, this was a tenth of a first run's time).
    pub(super) fn words(&mut self, text: &[u8]) {
        let start = self.pending.len();
        // Room for every byte and the NUL after the last word.
        self.pending.resize(start + text.len() + 1, 0);
        let mut out = Words {
            out: &mut self.pending[start..],
            len: 0,
            in_word: false,
        };
        let mut blocks = text.chunks_exact(8);
        for block in &mut blocks {
            out.block(block.try_into().expect("eight bytes"));
        }
        for &byte in blocks.remainder() {
            out.byte(byte);
        }
        let len = out.len + usize::from(out.in_word);
        self.pending.truncate(start + len);
        self.hash_pending(PENDING);
    }

    pub(super) fn url(&mut self, mark: u8, url: &[u8]) {
        self.pending.push(mark);
        self.pending.extend_from_slice(url);
        self.pending.push(0);
        self.hash_pending(PENDING);
    }

    /// Hashes what is gathered once there are `at_least` bytes of it.
    fn hash_pending(&mut self, at_least: usize) {
        if self.pending.len() >= at_least {
            self.hasher.update(&self.pending);
            self.pending.clear();
        }
    }

    pub(super) fn finalize(mut self) -> blake3::Hash {
        self.hash_pending(0);
        self.hasher.finalize()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_each_followed_by_a_nul_whatever_the_whitespace() {
        let check = |text: &[u8]| {
            let mut stream = Stream::new();
            stream.words(text);
            let mut expected = Vec::new();
            for word in text.split(u8::is_ascii_whitespace) {
                if !word.is_empty() {
                    expected.extend_from_slice(word);
                    expected.push(0);
                }
            }
            assert_eq!(stream.pending, expected, "{text:?}");
        };
        for text in [
            "",
            " ",
            "word",
            "  two\twords \r\n",
            "\x0c form\x0bfeed\x0c",
            "a b  c   d",
            " é,\u{a0}x ",
            "eight by tes, a block each; words wordword  two  spaces",
        ] {
            check(text.as_bytes());
        }
        // Texts of every length to 40 from bytes around a space, the others whitespace too.
        let alphabet = b"abcd e fg \t\n\r\x0c\x0b\x1f!\xa0\xff";
        let mut seed = 1u64;
        for n in 0..20_000 {
            let text: Vec<u8> = (0..n % 41)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    alphabet[(seed >> 33) as usize % alphabet.len()]
                })
                .collect();
            check(&text);
        }
    }
}
