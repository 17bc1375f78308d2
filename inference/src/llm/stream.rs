//! Generated ids to text, piece by piece, holding back what could still become a stop string.

use super::token_bytes::TokenBytes;
use std::sync::Arc;

/// Turns generated ids into released text; stops at the first stop string (not released).
pub struct TextStream {
    vocab: Arc<TokenBytes>,
    stops: Vec<String>,
    /// Bytes of every printing token so far.
    bytes: Vec<u8>,
    /// `bytes[..released]` has been handed out (as `text`).
    released: usize,
    text: String,
    stopped: Option<usize>,
}

impl TextStream {
    pub fn new(vocab: Arc<TokenBytes>, stops: &[String]) -> Self {
        TextStream { vocab, stops: stops.to_vec(), bytes: Vec::new(), released: 0, text: String::new(), stopped: None }
    }

    /// Adds a token and returns the newly released text (empty while a character or a possible
    /// stop string is incomplete).
    pub fn push(&mut self, id: u32) -> &str {
        if self.stopped.is_some() {
            return "";
        }
        self.bytes.extend_from_slice(self.vocab.get(id));
        // A stop string cannot start inside released text: its start would have been held back.
        let tail = &self.bytes[self.released..];
        let found = self
            .stops
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.is_empty())
            .filter_map(|(i, s)| find(tail, s.as_bytes()).map(|at| (at, i)))
            .min();
        let end = match found {
            Some((at, i)) => {
                self.stopped = Some(i);
                self.released + at
            }
            None => self.bytes.len() - self.held_back(),
        };
        self.release(end, found.is_some())
    }

    /// Releases everything not yet released (at the end of generation) and returns it.
    pub fn finish(&mut self) -> &str {
        if self.stopped.is_some() {
            return "";
        }
        self.release(self.bytes.len(), true)
    }

    /// Index into the stop strings of the one that ended the text.
    pub fn stopped(&self) -> Option<usize> {
        self.stopped
    }

    /// All released text.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn into_text(self) -> String {
        self.text
    }

    /// Length of the longest suffix that begins some stop string.
    fn held_back(&self) -> usize {
        let tail = &self.bytes[self.released..];
        self.stops
            .iter()
            .map(|s| {
                let s = s.as_bytes();
                (1..s.len().min(tail.len() + 1)).rev().find(|&k| tail.ends_with(&s[..k])).unwrap_or(0)
            })
            .max()
            .unwrap_or(0)
    }

    /// Releases `bytes[released..end]` as text; an incomplete character at the end waits unless
    /// `all`. Bytes that are not UTF-8 become U+FFFD.
    fn release(&mut self, end: usize, all: bool) -> &str {
        let start_text = self.text.len();
        let mut chunk = &self.bytes[self.released..end];
        loop {
            match std::str::from_utf8(chunk) {
                Ok(s) => {
                    self.text.push_str(s);
                    self.released = end;
                    break;
                }
                Err(e) => {
                    let (ok, rest) = chunk.split_at(e.valid_up_to());
                    self.text.push_str(std::str::from_utf8(ok).unwrap_or_default());
                    match e.error_len() {
                        Some(n) => {
                            self.text.push(char::REPLACEMENT_CHARACTER);
                            chunk = &rest[n..];
                        }
                        None if all => {
                            self.text.push(char::REPLACEMENT_CHARACTER);
                            self.released = end;
                            break;
                        }
                        None => {
                            self.released = end - rest.len();
                            break;
                        }
                    }
                }
            }
        }
        &self.text[start_text..]
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> TokenBytes {
        let pieces: [&[u8]; 7] = [b"Hello", b" wor", b"ld", b"\n\nUser", b":", &[0xC3], &[0xA9]];
        TokenBytes::from_fn(pieces.len(), |i| Some(pieces[i].to_vec()))
    }

    #[test]
    fn stop_string_is_cut_and_prefixes_wait() {
        let v = vocab();
        let stops = vec!["\nUser:".to_string(), "xyz".to_string()];
        let mut s = TextStream::new(Arc::new(v), &stops);
        assert_eq!(s.push(0), "Hello");
        assert_eq!(s.push(1), " wor");
        assert_eq!(s.push(2), "ld");
        // "\n\nUser" ends with "\nUser", the start of a stop string: only "\n" goes out.
        assert_eq!(s.push(3), "\n");
        assert_eq!(s.push(4), "");
        assert_eq!(s.stopped(), Some(0));
        assert_eq!(s.text(), "Hello world\n");
        assert_eq!(s.push(0), "", "nothing after a stop");
    }

    #[test]
    fn held_text_is_released_when_it_cannot_stop() {
        let v = vocab();
        let stops = vec!["\nUser!".to_string()];
        let mut s = TextStream::new(Arc::new(v), &stops);
        assert_eq!(s.push(3), "\n");
        assert_eq!(s.push(4), "\nUser:");
        assert_eq!(s.stopped(), None);
    }

    #[test]
    fn split_characters_wait_for_their_second_byte() {
        let v = vocab();
        let mut s = TextStream::new(Arc::new(v), &[]);
        assert_eq!(s.push(5), "");
        assert_eq!(s.push(6), "é");
        assert_eq!(s.push(5), "");
        assert_eq!(s.finish(), "\u{FFFD}", "a dangling byte is replaced at the end");
        assert_eq!(s.into_text(), "é\u{FFFD}");
    }
}
