//! The vocabulary as a byte trie laid out in preorder, so masking is one forward scan that
//! skips every subtree whose first bytes the automaton refuses.

use super::automaton::JsonState;
use super::schema::Schema;
use crate::llm::token_bytes::TokenBytes;

/// Tokens with printing bytes, merged by shared prefixes.
pub struct TokenTrie {
    /// Per node in preorder (the root is implicit): its byte, its depth (1 for a first byte), the
    /// node after its subtree, and where its tokens start in `tokens`.
    byte: Vec<u8>,
    depth: Vec<u16>,
    end: Vec<u32>,
    tok_start: Vec<u32>,
    /// Ids of tokens, grouped by the node their bytes end at.
    tokens: Vec<u32>,
    max_depth: usize,
    vocab: usize,
}

impl TokenTrie {
    /// Builds the trie of every token that has bytes (special tokens are left out).
    pub fn new(vocab: &TokenBytes) -> Self {
        let mut ids: Vec<u32> = (0..vocab.len() as u32).filter(|&i| !vocab.get(i).is_empty()).collect();
        ids.sort_by(|&a, &b| vocab.get(a).cmp(vocab.get(b)).then(a.cmp(&b)));
        let mut t = TokenTrie {
            byte: Vec::new(),
            depth: Vec::new(),
            end: Vec::new(),
            tok_start: Vec::new(),
            tokens: Vec::with_capacity(ids.len()),
            max_depth: 0,
            vocab: vocab.len(),
        };
        // `open[d]` is the node at depth d + 1 on the current path.
        let mut open: Vec<u32> = Vec::new();
        let mut prev: &[u8] = &[];
        for &id in &ids {
            let bytes = vocab.get(id);
            let shared = bytes.iter().zip(prev).take_while(|(a, b)| a == b).count();
            for node in open.drain(shared..) {
                t.end[node as usize] = t.byte.len() as u32;
            }
            for (d, &b) in bytes.iter().enumerate().skip(shared) {
                open.push(t.byte.len() as u32);
                t.byte.push(b);
                t.depth.push(d as u16 + 1);
                t.end.push(0);
                t.tok_start.push(t.tokens.len() as u32);
            }
            // Sorted order puts a token right after the nodes its bytes end at.
            t.tokens.push(id);
            t.max_depth = t.max_depth.max(bytes.len());
            prev = bytes;
        }
        for node in open {
            t.end[node as usize] = t.byte.len() as u32;
        }
        t.tok_start.push(t.tokens.len() as u32);
        t
    }

    /// Number of nodes (shared prefixes counted once).
    pub fn nodes(&self) -> usize {
        self.byte.len()
    }

    /// Sets `allowed[id]` for every token after which the output is still a valid prefix that
    /// can be completed in `remaining - 1` more single-byte tokens. `scratch` is reused.
    pub fn allowed(&self, schema: &Schema, state: &JsonState, remaining: usize, allowed: &mut [bool], scratch: &mut Vec<JsonState>) {
        allowed[..self.vocab].fill(false);
        if remaining == 0 {
            return;
        }
        scratch.resize(self.max_depth + 1, *state);
        scratch[0] = *state;
        let n = self.byte.len();
        let mut i = 0;
        while i < n {
            let d = self.depth[i] as usize;
            let (parent, child) = scratch.split_at_mut(d);
            let s = &mut child[0];
            s.set_from(&parent[d - 1]);
            if !s.step(schema, self.byte[i]) {
                i = self.end[i] as usize;
                continue;
            }
            let toks = &self.tokens[self.tok_start[i] as usize..self.tok_start[i + 1] as usize];
            if !toks.is_empty() && s.rest(schema) < remaining {
                for &t in toks {
                    allowed[t as usize] = true;
                }
            }
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_match_stepping_each_token() {
        let pieces: Vec<&[u8]> =
            vec![b"{", b"{\"", b"{\"a", b"\"", b"a", b"\":", b"1", b"12", b"}", b"\"}", b"x", b"", b"\xC3", b"\xA9", b"\xC3\xA9"];
        let vocab = TokenBytes::from_fn(pieces.len(), |i| if pieces[i].is_empty() { None } else { Some(pieces[i].to_vec()) });
        let trie = TokenTrie::new(&vocab);
        assert!(trie.nodes() < pieces.iter().map(|p| p.len()).sum::<usize>(), "prefixes are shared");
        let schema = Schema::parse(r#"{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}"#).unwrap();
        let mut scratch = Vec::new();
        let mut allowed = vec![false; pieces.len()];
        let prefixes: [&[u8]; 5] = [b"", b"{", b"{\"a\":", b"{\"a\":\"", b"{\"a\":\"\xC3"];
        for prefix in prefixes {
            let mut st = JsonState::new(&schema);
            assert!(st.step_all(&schema, prefix));
            let prefix = String::from_utf8_lossy(prefix);
            for remaining in [1, 3, 100] {
                trie.allowed(&schema, &st, remaining, &mut allowed, &mut scratch);
                for (id, p) in pieces.iter().enumerate() {
                    let mut s = st;
                    let want = !p.is_empty() && s.step_all(&schema, p) && s.rest(&schema) < remaining;
                    assert_eq!(allowed[id], want, "after {prefix:?} with {remaining} left: token {:?}", String::from_utf8_lossy(p));
                }
            }
        }
    }
}
