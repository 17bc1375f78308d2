//! A byte-level pushdown automaton over a compiled [`Schema`]: which bytes keep the output a
//! prefix of some valid document, and how many bytes at least are needed to finish it.
//!
//! The state is a fixed-size stack of frames, one per open value, so copying it is a memcpy
//! (the token trie copies it at every node it visits). Values without a closing byte (numbers,
//! some enums) end when a byte they cannot take arrives; the byte then goes to the parent.

use super::schema::{MAX_DEPTH, Node, NodeId, Object, Schema};

/// Frames the stack can hold: one per nesting level, leaves included.
const MAX_STACK: usize = MAX_DEPTH + 1;
/// Most digits in each part of a `number` (integer part, fraction, exponent).
const MAX_NUMBER_DIGITS: [u8; 3] = [16, 16, 2];

#[derive(Clone, Copy, Debug, PartialEq)]
enum ObjPhase {
    Start,
    /// After `{`.
    Open,
    /// After a value: `,` or `}`.
    AfterValue,
    AfterComma,
    /// Inside a key, `pos` bytes (the quote included) matched; `cand` are the keys still possible.
    Key,
    Colon,
    /// The value of property `prop` is open (the frame above).
    Value,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum ArrPhase {
    Start,
    Open,
    /// An item is open (the frame above).
    Item,
    AfterItem,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum NumPhase {
    Start,
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    E,
    ESign,
    Exp,
}

#[derive(Clone, Copy, Debug)]
enum Frame {
    Lit { node: NodeId, pos: u16, cand: u64 },
    Str { node: NodeId, open: bool, esc: bool, chars: u32, need: u8, lo: u8, hi: u8 },
    Int { node: NodeId, neg: bool, digits: u8, mag: u64 },
    Num { phase: NumPhase, digits: u8 },
    Arr { node: NodeId, phase: ArrPhase, count: u32 },
    Obj { node: NodeId, phase: ObjPhase, next: u8, prop: u8, pos: u16, cand: u64 },
}

/// What a frame did with a byte.
enum Feed {
    /// Taken.
    Ok,
    /// Taken, and the value is complete (closing quote or bracket).
    Done,
    /// Taken, and a child value starts after it (`:` or `,`).
    Push(Frame),
    /// A child value starts with this byte.
    Delegate(Frame),
    Reject,
}

/// Where the output stands: the open values, outermost first. Empty once the root is complete.
#[derive(Clone, Copy, Debug)]
pub struct JsonState {
    len: u8,
    stack: [Frame; MAX_STACK],
}

impl JsonState {
    /// Nothing written yet.
    pub fn new(schema: &Schema) -> Self {
        let mut stack = [Frame::Num { phase: NumPhase::Start, digits: 0 }; MAX_STACK];
        stack[0] = start(schema, schema.root);
        JsonState { len: 1, stack }
    }

    /// Copies `other`'s open frames only.
    #[inline]
    pub fn set_from(&mut self, other: &JsonState) {
        let n = other.len as usize;
        self.len = other.len;
        self.stack[..n].copy_from_slice(&other.stack[..n]);
    }

    /// The root value is closed: nothing more may follow.
    pub fn is_complete(&self) -> bool {
        self.len == 0
    }

    /// The output is valid JSON as it stands (a complete root, or a root number that could go on).
    pub fn can_finish(&self, s: &Schema) -> bool {
        self.len == 0 || (self.len == 1 && can_end(&self.stack[0], s))
    }

    /// Advances by one byte; false (state unspecified) when the byte cannot come next.
    pub fn step(&mut self, s: &Schema, b: u8) -> bool {
        loop {
            if self.len == 0 {
                return false;
            }
            let top = self.len as usize - 1;
            match feed(&mut self.stack[top], s, b) {
                Feed::Ok => return true,
                Feed::Done => {
                    self.pop();
                    return true;
                }
                Feed::Push(f) => return self.push(f),
                Feed::Delegate(f) => {
                    if !self.push(f) {
                        return false;
                    }
                }
                Feed::Reject => {
                    if !can_end(&self.stack[top], s) {
                        return false;
                    }
                    self.pop();
                }
            }
        }
    }

    /// Advances by every byte of `bytes`.
    pub fn step_all(&mut self, s: &Schema, bytes: &[u8]) -> bool {
        bytes.iter().all(|&b| self.step(s, b))
    }

    /// Fewest bytes that complete the output from here.
    pub fn rest(&self, s: &Schema) -> usize {
        self.stack[..self.len as usize].iter().map(|f| rest(f, s)).sum()
    }

    fn push(&mut self, f: Frame) -> bool {
        if self.len as usize == MAX_STACK {
            return false;
        }
        self.stack[self.len as usize] = f;
        self.len += 1;
        true
    }

    /// Closes the top value and tells its parent.
    fn pop(&mut self) {
        self.len -= 1;
        if let Some(parent) = self.len.checked_sub(1) {
            match &mut self.stack[parent as usize] {
                Frame::Arr { phase, count, .. } => {
                    *phase = ArrPhase::AfterItem;
                    *count += 1;
                }
                Frame::Obj { phase, next, prop, .. } => {
                    *phase = ObjPhase::AfterValue;
                    *next = *prop + 1;
                }
                _ => unreachable!("only arrays and objects have children"),
            }
        }
    }
}

fn start(s: &Schema, node: NodeId) -> Frame {
    match &s.nodes[node as usize] {
        Node::Literals { bytes, .. } => Frame::Lit { node, pos: 0, cand: all(bytes.len()) },
        Node::String { .. } => Frame::Str { node, open: false, esc: false, chars: 0, need: 0, lo: 0, hi: 0 },
        Node::Integer { .. } => Frame::Int { node, neg: false, digits: 0, mag: 0 },
        Node::Number => Frame::Num { phase: NumPhase::Start, digits: 0 },
        Node::Array { .. } => Frame::Arr { node, phase: ArrPhase::Start, count: 0 },
        Node::Object(_) => Frame::Obj { node, phase: ObjPhase::Start, next: 0, prop: 0, pos: 0, cand: 0 },
    }
}

fn all(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// Candidates of `cand` whose byte at `pos` is `b`.
#[inline]
fn filter<'a>(cand: u64, pos: usize, b: u8, get: impl Fn(usize) -> &'a [u8]) -> u64 {
    let (mut m, mut out) = (cand, 0);
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        if get(i).get(pos) == Some(&b) {
            out |= 1 << i;
        }
    }
    out
}

/// Fewest further bytes over candidates: `cost(i)`.
fn min_over(cand: u64, cost: impl Fn(usize) -> usize) -> usize {
    let (mut m, mut best) = (cand, usize::MAX);
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        best = best.min(cost(i));
    }
    best
}

fn obj(s: &Schema, node: NodeId) -> &Object {
    match &s.nodes[node as usize] {
        Node::Object(o) => o,
        _ => unreachable!("object frame on a non-object node"),
    }
}

fn lits(s: &Schema, node: NodeId) -> &[Vec<u8>] {
    match &s.nodes[node as usize] {
        Node::Literals { bytes, .. } => bytes,
        _ => unreachable!("literal frame on a non-literal node"),
    }
}

fn feed(f: &mut Frame, s: &Schema, b: u8) -> Feed {
    match f {
        Frame::Lit { node, pos, cand } => {
            let l = lits(s, *node);
            let next = filter(*cand, *pos as usize, b, |i| &l[i]);
            if next == 0 {
                return Feed::Reject;
            }
            *pos += 1;
            *cand = next;
            // Done when every candidate left is complete; a longer one may go on (enum [1, 12]).
            let complete = filter_complete(next, *pos as usize, l);
            if complete == next { Feed::Done } else { Feed::Ok }
        }
        Frame::Str { node, open, esc, chars, need, lo, hi } => {
            let Node::String { min, max } = s.nodes[*node as usize] else { unreachable!() };
            if !*open {
                if b != b'"' {
                    return Feed::Reject;
                }
                *open = true;
                return Feed::Ok;
            }
            if *need > 0 {
                if b < *lo || b > *hi {
                    return Feed::Reject;
                }
                *need -= 1;
                (*lo, *hi) = (0x80, 0xBF);
                return Feed::Ok;
            }
            if *esc {
                // \uXXXX is left out: a lone surrogate would not parse.
                if !matches!(b, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') {
                    return Feed::Reject;
                }
                *esc = false;
                return Feed::Ok;
            }
            if b == b'"' {
                return if *chars as usize >= min { Feed::Done } else { Feed::Reject };
            }
            let (n, first_lo, first_hi) = match b {
                0x00..=0x1F => return Feed::Reject,
                0x20..=0x7F => (0, 0, 0),
                0xC2..=0xDF => (1, 0x80, 0xBF),
                0xE0 => (2, 0xA0, 0xBF),
                0xE1..=0xEC | 0xEE..=0xEF => (2, 0x80, 0xBF),
                0xED => (2, 0x80, 0x9F),
                0xF0 => (3, 0x90, 0xBF),
                0xF1..=0xF3 => (3, 0x80, 0xBF),
                0xF4 => (3, 0x80, 0x8F),
                _ => return Feed::Reject,
            };
            if *chars as usize >= max {
                return Feed::Reject;
            }
            *chars += 1;
            *esc = b == b'\\';
            (*need, *lo, *hi) = (n, first_lo, first_hi);
            Feed::Ok
        }
        Frame::Int { node, neg, digits, mag } => {
            let Node::Integer { min, max } = s.nodes[*node as usize] else { unreachable!() };
            if b == b'-' && !*neg && *digits == 0 {
                if min > -1 {
                    return Feed::Reject;
                }
                *neg = true;
                return Feed::Ok;
            }
            if !b.is_ascii_digit() {
                return Feed::Reject;
            }
            let d = (b - b'0') as u64;
            // No leading zeros, and no "-0" (serde_json reads it as a float).
            if (*digits == 1 && *mag == 0) || (*neg && *digits == 0 && d == 0) {
                return Feed::Reject;
            }
            let Some(m) = mag.checked_mul(10).and_then(|m| m.checked_add(d)) else { return Feed::Reject };
            let (complete, extend) = int_reach(min, max, *neg, *digits as u32 + 1, m);
            if !complete && extend.is_none() {
                return Feed::Reject;
            }
            *digits += 1;
            *mag = m;
            if extend.is_none() { Feed::Done } else { Feed::Ok }
        }
        Frame::Num { phase, digits } => {
            use NumPhase::*;
            let digit = b.is_ascii_digit();
            let cap = |part: usize| *digits < MAX_NUMBER_DIGITS[part];
            let (p, d) = match (*phase, b) {
                (Start, b'-') => (Minus, 0),
                (Start | Minus, b'0') => (Zero, 0),
                (Start | Minus, _) if digit => (Int, 1),
                (Int, _) if digit && cap(0) => (Int, *digits + 1),
                (Zero | Int, b'.') => (Dot, 0),
                (Dot, _) if digit => (Frac, 1),
                (Frac, _) if digit && cap(1) => (Frac, *digits + 1),
                (Zero | Int | Frac, b'e' | b'E') => (E, 0),
                (E, b'+' | b'-') => (ESign, 0),
                (E | ESign, _) if digit => (Exp, 1),
                (Exp, _) if digit && cap(2) => (Exp, *digits + 1),
                _ => return Feed::Reject,
            };
            (*phase, *digits) = (p, d);
            Feed::Ok
        }
        Frame::Arr { node, phase, count } => {
            let Node::Array { items, min, max } = s.nodes[*node as usize] else { unreachable!() };
            match (*phase, b) {
                (ArrPhase::Start, b'[') => {
                    *phase = ArrPhase::Open;
                    Feed::Ok
                }
                (ArrPhase::Open, b']') if min == 0 => Feed::Done,
                (ArrPhase::Open, _) if max > 0 && b != b']' => {
                    *phase = ArrPhase::Item;
                    Feed::Delegate(start(s, items))
                }
                (ArrPhase::AfterItem, b',') if (*count as usize) < max => {
                    *phase = ArrPhase::Item;
                    Feed::Push(start(s, items))
                }
                (ArrPhase::AfterItem, b']') if *count as usize >= min => Feed::Done,
                _ => Feed::Reject,
            }
        }
        Frame::Obj { node, phase, next, prop, pos, cand } => {
            let o = obj(s, *node);
            let n = *next as usize;
            match (*phase, b) {
                (ObjPhase::Start, b'{') => {
                    *phase = ObjPhase::Open;
                    Feed::Ok
                }
                (ObjPhase::Open | ObjPhase::AfterValue, b'}') if o.may_close(n) => Feed::Done,
                (ObjPhase::AfterValue, b',') if o.eligible(n) != 0 => {
                    *phase = ObjPhase::AfterComma;
                    Feed::Ok
                }
                (ObjPhase::Open | ObjPhase::AfterComma, b'"') if o.eligible(n) != 0 => {
                    (*phase, *pos, *cand) = (ObjPhase::Key, 1, o.eligible(n));
                    Feed::Ok
                }
                (ObjPhase::Key, _) => {
                    let c = filter(*cand, *pos as usize, b, |i| &o.props[i].key);
                    if c == 0 {
                        return Feed::Reject;
                    }
                    *pos += 1;
                    *cand = c;
                    // Keys end in a quote, so no key is a prefix of another.
                    let i = c.trailing_zeros() as usize;
                    if o.props[i].key.len() == *pos as usize {
                        (*phase, *prop) = (ObjPhase::Colon, i as u8);
                    }
                    Feed::Ok
                }
                (ObjPhase::Colon, b':') => {
                    *phase = ObjPhase::Value;
                    Feed::Push(start(s, o.props[*prop as usize].node))
                }
                _ => Feed::Reject,
            }
        }
    }
}

/// Candidates of `cand` exactly `pos` bytes long.
fn filter_complete(cand: u64, pos: usize, l: &[Vec<u8>]) -> u64 {
    let (mut m, mut out) = (cand, 0);
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        if l[i].len() == pos {
            out |= 1 << i;
        }
    }
    out
}

/// For an integer written so far (`digits` digits of magnitude `mag`, sign `neg`) under
/// `min..=max`: whether it is complete and valid now, and the fewest further digits that make it
/// valid (`None`: no longer one is).
fn int_reach(min: i64, max: i64, neg: bool, digits: u32, mag: u64) -> (bool, Option<u32>) {
    // The magnitudes allowed for this sign.
    let (a, b) = if neg { ((-(max as i128)).max(1), -(min as i128)) } else { ((min as i128).max(0), max as i128) };
    if a > b {
        return (false, None);
    }
    let m = mag as i128;
    if digits == 0 {
        // Only "-" so far: the smallest allowed magnitude has the fewest digits.
        return (false, Some(a.to_string().len() as u32));
    }
    let complete = a <= m && m <= b;
    if mag == 0 {
        return (complete, None);
    }
    let mut p: i128 = 1;
    for k in 1..=20 {
        p *= 10;
        let lo = m * p;
        if lo > b {
            break;
        }
        if lo + p - 1 >= a {
            return (complete, Some(k));
        }
    }
    (complete, None)
}

fn can_end(f: &Frame, s: &Schema) -> bool {
    match *f {
        Frame::Lit { node, pos, cand } => filter_complete(cand, pos as usize, lits(s, node)) != 0,
        Frame::Int { node, neg, digits, mag } => {
            let Node::Integer { min, max } = s.nodes[node as usize] else { unreachable!() };
            digits > 0 && int_reach(min, max, neg, digits as u32, mag).0
        }
        Frame::Num { phase, .. } => matches!(phase, NumPhase::Zero | NumPhase::Int | NumPhase::Frac | NumPhase::Exp),
        // Strings, arrays and objects end at their closing byte and are popped there.
        _ => false,
    }
}

/// Fewest bytes that finish this frame, not counting an open child's own.
fn rest(f: &Frame, s: &Schema) -> usize {
    match *f {
        Frame::Lit { node, pos, cand } => {
            let l = lits(s, node);
            min_over(cand, |i| l[i].len() - pos as usize)
        }
        Frame::Str { node, open: false, .. } => s.min_len[node as usize],
        Frame::Str { node, esc, chars, need, .. } => {
            let Node::String { min, .. } = s.nodes[node as usize] else { unreachable!() };
            1 + need as usize + usize::from(esc) + min.saturating_sub(chars as usize)
        }
        Frame::Int { node, neg: false, digits: 0, .. } => s.min_len[node as usize],
        Frame::Int { node, neg, digits, mag } => {
            let Node::Integer { min, max } = s.nodes[node as usize] else { unreachable!() };
            match int_reach(min, max, neg, digits as u32, mag) {
                (true, _) => 0,
                (false, Some(k)) => k as usize,
                (false, None) => usize::MAX / 4, // unreachable for a state step() produced
            }
        }
        Frame::Num { phase, .. } => usize::from(!matches!(phase, NumPhase::Zero | NumPhase::Int | NumPhase::Frac | NumPhase::Exp)),
        Frame::Arr { node, phase, count } => {
            let Node::Array { items, min, .. } = s.nodes[node as usize] else { unreachable!() };
            let item = s.min_len[items as usize];
            let count = count as usize;
            match phase {
                ArrPhase::Start => s.min_len[node as usize],
                ArrPhase::Open if min == 0 => 1,
                ArrPhase::Open => min * item + (min - 1) + 1,
                ArrPhase::Item => min.saturating_sub(count + 1) * (1 + item) + 1,
                ArrPhase::AfterItem => min.saturating_sub(count) * (1 + item) + 1,
            }
        }
        Frame::Obj { node, phase, next, prop, pos, cand } => {
            let o = obj(s, node);
            let n = next as usize;
            // After key j: the colon, the shortest value, then what must follow it.
            let after_key = |j: usize| 1 + s.min_len[o.props[j].node as usize] + o.tail[j];
            let any_key = |m: u64| min_over(m, |j| o.props[j].key.len() + after_key(j));
            let close = |n: usize| if o.may_close(n) { 1 } else { usize::MAX };
            match phase {
                ObjPhase::Start => s.min_len[node as usize],
                ObjPhase::Open => close(0).min(any_key(o.eligible(0))),
                ObjPhase::AfterValue => close(n).min(any_key(o.eligible(n)).saturating_add(1)),
                ObjPhase::AfterComma => any_key(o.eligible(n)),
                ObjPhase::Key => min_over(cand, |j| o.props[j].key.len() - pos as usize + after_key(j)),
                ObjPhase::Colon => after_key(prop as usize),
                ObjPhase::Value => o.tail[prop as usize],
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(text: &str) -> Schema {
        Schema::parse(text).unwrap()
    }

    /// Whether `text` is a valid prefix, and whether it is complete.
    fn run(s: &Schema, text: &str) -> Option<bool> {
        let mut st = JsonState::new(s);
        st.step_all(s, text.as_bytes()).then(|| st.can_finish(s))
    }

    const PERSON: &str = r#"{"type": "object", "properties": {
        "name": {"type": "string", "maxLength": 5},
        "age": {"type": "integer", "minimum": 0, "maximum": 120},
        "role": {"enum": ["student", "teacher"]},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
        "ok": {"type": "boolean"}},
        "required": ["name", "age", "tags"]}"#;

    #[test]
    fn accepts_valid_and_rejects_invalid_objects() {
        let s = schema(PERSON);
        assert_eq!(run(&s, r#"{"name":"Ann","age":30,"tags":["x"]}"#), Some(true));
        assert_eq!(run(&s, r#"{"name":"Ann","age":30,"role":"teacher","tags":["x","é"],"ok":false}"#), Some(true));
        assert_eq!(run(&s, r#"{"name":"Ann","age":3"#), Some(false), "a prefix");
        for bad in [
            r#"{"age":30"#,                                  // required name first (schema order)
            r#"{"name":"Annabel""#,                          // maxLength 5
            r#"{"name":"Ann","age":121"#,                    // maximum
            r#"{"name":"Ann","age":-1"#,                     // minimum
            r#"{"name":"Ann","age":07"#,                     // leading zero
            r#"{"name":"Ann","age":30}"#,                    // tags required
            r#"{"name":"Ann","age":30,"tags":[]"#,           // minItems
            r#"{"name":"Ann","age":30,"tags":["a","b","c""#, // maxItems: the third is refused at ','
            r#"{"name":"Ann","age":30,"role":"t"x"#,
            r#"{"name":"Ann","age":30,"extra":1"#,
            r#"{"name":"A\u0041"#, // \u escapes are not produced
            "{\"name\":\"A\n",     // raw control character
            r#"{ "name""#,         // no whitespace
        ] {
            assert_eq!(run(&s, bad), None, "{bad}");
        }
        assert_eq!(run(&s, r#"{"name":"Ann","age":30,"tags":["a","b""#), Some(false));
        assert_eq!(run(&s, r#"{"name":"Ann","age":30,"tags":["a","b"],"#), Some(false), "ok may follow");
        assert_eq!(run(&s, r#"{"name":"Ann","age":30,"tags":["a","b"],"ok":true}x"#), None, "nothing after the end");
    }

    #[test]
    fn utf8_must_be_whole_and_valid() {
        let s = schema(r#"{"type": "string", "maxLength": 2}"#);
        let mut st = JsonState::new(&s);
        assert!(st.step_all(&s, b"\"\xE0"));
        assert!(!st.clone().step(&s, 0x80), "overlong: E0 needs A0..BF next");
        assert!(st.step_all(&s, b"\xA4\x85"), "U+0905");
        assert_eq!(st.rest(&s), 1);
        assert!(st.clone().step(&s, b'"'));
        assert!(!JsonState::new(&s).step_all(&s, b"\"\xED\xA0\x80"), "surrogate");
        assert!(!JsonState::new(&s).step_all(&s, b"\"\xC0\xAF"), "overlong");
        assert!(!JsonState::new(&s).step_all(&s, b"\"\xC3\""), "cut character");
        assert_eq!(run(&s, "\"অআ\""), Some(true), "two characters of three bytes each");
        assert_eq!(run(&s, "\"অআই"), None, "a third is one too many");
    }

    #[test]
    fn numbers_end_where_their_parent_continues() {
        let s = schema(r#"{"type": "array", "items": {"type": "number"}, "maxItems": 3}"#);
        assert_eq!(run(&s, "[0,-1.5e+10,3E2]"), Some(true));
        assert_eq!(run(&s, "[01"), None);
        assert_eq!(run(&s, "[1.]"), None);
        assert_eq!(run(&s, "[1e999"), None, "at most two exponent digits");
        let root = schema(r#"{"type": "integer", "minimum": -20, "maximum": 300}"#);
        assert_eq!(run(&root, "-"), Some(false));
        assert_eq!(run(&root, "-2"), Some(true));
        assert_eq!(run(&root, "-21"), None);
        assert_eq!(run(&root, "-0"), None);
        assert_eq!(run(&root, "30"), Some(true));
        assert_eq!(run(&root, "301"), None);
        let big = schema(r#"{"type": "integer", "minimum": 1000}"#);
        assert_eq!(run(&big, "5"), Some(false), "5 is not enough but 5000 is");
        assert_eq!(JsonState::new(&big).rest(&big), 4);
        let mut st = JsonState::new(&big);
        assert!(st.step(&big, b'5'));
        assert_eq!(st.rest(&big), 3);
        assert_eq!(run(&big, "99999999999999999999"), None, "beyond i64");
        let lits = schema(r#"{"enum": [1, 12, "a", null, {"k": [true]}]}"#);
        for ok in ["1", "12", "\"a\"", "null", r#"{"k":[true]}"#] {
            assert_eq!(run(&lits, ok), Some(true), "{ok}");
        }
        assert_eq!(run(&lits, "13"), None);
    }

    #[test]
    fn rest_is_the_shortest_completion() {
        let s = schema(PERSON);
        let cases = [
            ("", r#"{"name":"","age":0,"tags":[""]}"#.len()),
            (r#"{"name":"Ann"#, r#"","age":0,"tags":[""]}"#.len()),
            (r#"{"name":"Ann","age":30,"tags":["x""#, 2),
            (r#"{"name":"Ann","age":30,"r"#, r#"ole":"student","tags":[""]}"#.len()),
            (r#"{"name":"Ann","age":30,"tags":["x"],"ok":"#, r#"true}"#.len()),
        ];
        for (prefix, want) in cases {
            let mut st = JsonState::new(&s);
            assert!(st.step_all(&s, prefix.as_bytes()), "{prefix}");
            assert_eq!(st.rest(&s), want, "after {prefix}");
        }
    }

    /// Walks random bytes from the allowed set, preferring the shortest completion once the
    /// budget is tight: every walk must end in JSON of the right shape.
    #[test]
    fn random_walks_always_parse() {
        let schemas = [
            PERSON,
            r#"{"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"enum": [1, 12]}}}, "maxItems": 4}"#,
            r#"{"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "array", "items": {"type": "integer", "minimum": -5, "maximum": 5000}}}, "required": ["b"]}, "c": {"type": "null"}}}"#,
        ];
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut rand = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet: Vec<u8> = (0x20..0x7F).chain([0xC3, 0xA9, 0xE0, 0xA6, 0x85]).collect();
        for text in schemas {
            let s = schema(text);
            for _ in 0..300 {
                let budget = s.min_output_len() + (rand() % 40) as usize;
                let mut st = JsonState::new(&s);
                let mut out = Vec::new();
                while !st.is_complete() && out.len() < budget {
                    let left = budget - out.len();
                    let ok: Vec<(u8, JsonState)> = alphabet
                        .iter()
                        .filter_map(|&b| {
                            let mut n = st;
                            (n.step(&s, b) && n.rest(&s) < left).then_some((b, n))
                        })
                        .collect();
                    if ok.is_empty() {
                        assert!(st.can_finish(&s), "dead end after {:?}", String::from_utf8_lossy(&out));
                        break;
                    }
                    let (b, n) = ok[(rand() % ok.len() as u64) as usize];
                    out.push(b);
                    st = n;
                    if st.can_finish(&s) && rand() % 4 == 0 {
                        break;
                    }
                }
                assert!(st.can_finish(&s), "unfinished within {budget}: {:?}", String::from_utf8_lossy(&out));
                let v: serde_json::Value =
                    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&out)));
                s.validate(&v).unwrap();
            }
        }
    }
}
