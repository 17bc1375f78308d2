//! The JSON Schema subset constrained decoding understands, compiled to a tree of nodes.
//!
//! Supported: `type` object (`properties`, `required`; no other keys allowed), array (`items`,
//! `minItems`, `maxItems`), string (`minLength`, `maxLength`), integer (`minimum`, `maximum`),
//! number, boolean, null; `enum` and `const` anywhere. Output is compact JSON with object
//! properties in schema order. Annotations (`title`, `description`, …) are ignored; any other
//! keyword is an error rather than a silently broken promise.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// Most values in one `enum`, and most properties of one object.
pub const MAX_ALTERNATIVES: usize = 64;
/// Deepest nesting of objects and arrays.
pub const MAX_DEPTH: usize = 12;
/// Longest integer bounds: i64.
const INT_RANGE: (i64, i64) = (i64::MIN, i64::MAX);

/// Why a schema cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("JSON schema at {path}: {msg}")]
pub struct SchemaError {
    pub path: String,
    pub msg: String,
}

/// A compiled schema: nodes in an arena, children before their parents.
#[derive(Clone, Debug)]
pub struct Schema {
    pub(crate) nodes: Vec<Node>,
    pub(crate) root: NodeId,
    /// Shortest output of each node, in bytes.
    pub(crate) min_len: Vec<usize>,
}

pub(crate) type NodeId = u16;

#[derive(Clone, Debug)]
pub(crate) enum Node {
    /// One of these exact byte strings (compact JSON): `enum`, `const`, `boolean`, `null`.
    Literals {
        bytes: Vec<Vec<u8>>,
        values: Vec<Value>,
    },
    String {
        min: usize,
        max: usize,
    },
    Integer {
        min: i64,
        max: i64,
    },
    Number,
    Array {
        items: NodeId,
        min: usize,
        max: usize,
    },
    Object(Object),
}

#[derive(Clone, Debug)]
pub(crate) struct Object {
    pub props: Vec<Prop>,
    /// `tail[j]`: shortest bytes after property `j`'s value: the later required properties
    /// (each with its comma) and `}`.
    pub tail: Vec<usize>,
    /// `first_required[j]`: the first required property at or after `j` (`props.len()` if none).
    pub first_required: Vec<usize>,
}

#[derive(Clone, Debug)]
pub(crate) struct Prop {
    pub name: String,
    /// `"name"` as compact JSON, quotes included.
    pub key: Vec<u8>,
    pub node: NodeId,
    pub required: bool,
}

impl Object {
    /// Properties that may come next when `next` is the first not yet passed: up to and including
    /// the first required one.
    pub fn eligible(&self, next: usize) -> u64 {
        let last = self.first_required[next.min(self.props.len())].min(self.props.len().saturating_sub(1));
        if next > last || next >= self.props.len() {
            return 0;
        }
        let upto = if last + 1 >= 64 { u64::MAX } else { (1u64 << (last + 1)) - 1 };
        upto & !((1u64 << next) - 1)
    }

    /// Whether `}` may come when `next` is the first property not yet passed.
    pub fn may_close(&self, next: usize) -> bool {
        self.first_required[next.min(self.props.len())] == self.props.len()
    }
}

impl Schema {
    /// Compiles a schema from JSON text, keeping the order of `properties` as written.
    pub fn parse(text: &str) -> Result<Schema, SchemaError> {
        let doc: Doc = serde_json::from_str(text).map_err(|e| err("", format!("not valid JSON ({e}); check the schema file")))?;
        Self::compile(&doc)
    }

    /// Compiles a schema from a `serde_json::Value` (properties in the map's order, alphabetical
    /// unless serde_json's `preserve_order` is on; use [`Schema::parse`] to keep the written order).
    pub fn from_value(v: &Value) -> Result<Schema, SchemaError> {
        Self::compile(&Doc::from(v))
    }

    fn compile(doc: &Doc) -> Result<Schema, SchemaError> {
        let mut s = Schema { nodes: Vec::new(), root: 0, min_len: Vec::new() };
        s.root = s.node(doc, "#", 0)?;
        Ok(s)
    }

    /// Shortest valid output, in bytes.
    pub fn min_output_len(&self) -> usize {
        self.min_len[self.root as usize]
    }

    /// Checks that `v` has this schema's shape; the message names the first mismatch.
    pub fn validate(&self, v: &Value) -> Result<(), String> {
        self.check(self.root, v, "#")
    }

    fn check(&self, id: NodeId, v: &Value, path: &str) -> Result<(), String> {
        let fail = |what: &str| Err(format!("{path}: {what}, found {v}"));
        match &self.nodes[id as usize] {
            Node::Literals { values, .. } => {
                if !values.contains(v) {
                    return fail(&format!("expected one of {values:?}"));
                }
            }
            Node::String { min, max } => match v.as_str() {
                Some(s) if (*min..=*max).contains(&s.chars().count()) => {}
                _ => return fail(&format!("expected a string of {min} to {max} characters")),
            },
            Node::Integer { min, max } => match v.as_i64() {
                Some(i) if (*min..=*max).contains(&i) => {}
                _ => return fail(&format!("expected an integer in {min}..={max}")),
            },
            Node::Number => {
                if !v.is_number() {
                    return fail("expected a number");
                }
            }
            Node::Array { items, min, max } => match v.as_array() {
                Some(a) if (*min..=*max).contains(&a.len()) => {
                    for (i, x) in a.iter().enumerate() {
                        self.check(*items, x, &format!("{path}/{i}"))?;
                    }
                }
                _ => return fail(&format!("expected an array of {min} to {max} items")),
            },
            Node::Object(o) => {
                let Some(map) = v.as_object() else { return fail("expected an object") };
                if let Some(k) = map.keys().find(|k| !o.props.iter().any(|p| &p.name == *k)) {
                    return Err(format!("{path}: unexpected property {k:?}"));
                }
                for p in &o.props {
                    match map.get(&p.name) {
                        Some(x) => self.check(p.node, x, &format!("{path}/{}", p.name))?,
                        None if p.required => return Err(format!("{path}: missing required property {:?}", p.name)),
                        None => {}
                    }
                }
            }
        }
        Ok(())
    }

    fn push(&mut self, node: Node, min_len: usize) -> NodeId {
        self.nodes.push(node);
        self.min_len.push(min_len);
        (self.nodes.len() - 1) as NodeId
    }

    fn node(&mut self, doc: &Doc, path: &str, depth: usize) -> Result<NodeId, SchemaError> {
        let Doc::Obj(fields) = doc else {
            return Err(err(path, "a schema must be an object such as {\"type\": \"string\"}"));
        };
        if depth > MAX_DEPTH {
            return Err(err(path, format!("nests deeper than {MAX_DEPTH} levels; flatten the schema")));
        }
        let get = |k: &str| fields.iter().find(|(name, _)| name == k).map(|(_, v)| v);
        let ty = get("type");
        let allowed: &[&str] = match ty {
            _ if get("enum").is_some() || get("const").is_some() => &["enum", "const", "type"],
            Some(Doc::Str(t)) => match t.as_str() {
                "object" => &["type", "properties", "required", "additionalProperties"],
                "array" => &["type", "items", "minItems", "maxItems"],
                "string" => &["type", "minLength", "maxLength"],
                "integer" => &["type", "minimum", "maximum"],
                "number" | "boolean" | "null" => &["type"],
                other => {
                    return Err(err(
                        path,
                        format!("type {other:?} is not supported; use object, array, string, integer, number, boolean or null"),
                    ));
                }
            },
            Some(_) => return Err(err(path, "\"type\" must be one string; unions of types are not supported, use enum for fixed choices")),
            None => return Err(err(path, "needs \"type\", \"enum\" or \"const\"")),
        };
        const ANNOTATIONS: &[&str] = &["title", "description", "default", "examples", "$schema", "$id", "$comment"];
        if let Some((k, _)) = fields.iter().find(|(k, _)| !allowed.contains(&k.as_str()) && !ANNOTATIONS.contains(&k.as_str())) {
            return Err(err(path, format!("keyword {k:?} is not supported here; supported: {}", allowed.join(", "))));
        }

        if let Some(values) = get("enum").or(get("const")) {
            let values: Vec<Value> = match (get("enum"), values) {
                (Some(Doc::Arr(a)), _) => a.iter().map(Value::from).collect(),
                (Some(_), _) => return Err(err(path, "\"enum\" must be an array of values")),
                (None, v) => vec![Value::from(v)],
            };
            return self.literals(values, path);
        }
        let Some(Doc::Str(ty)) = ty else { unreachable!("checked above") };
        let uint = |k: &str| -> Result<Option<usize>, SchemaError> {
            match get(k) {
                None => Ok(None),
                Some(Doc::Num(n)) if n.as_u64().is_some() => Ok(Some(n.as_u64().unwrap() as usize)),
                Some(_) => Err(err(path, format!("\"{k}\" must be a non-negative integer"))),
            }
        };
        match ty.as_str() {
            "boolean" => self.literals(vec![Value::Bool(true), Value::Bool(false)], path),
            "null" => self.literals(vec![Value::Null], path),
            "number" => Ok(self.push(Node::Number, 1)),
            "string" => {
                let (min, max) = (uint("minLength")?.unwrap_or(0), uint("maxLength")?.unwrap_or(usize::MAX));
                if min > max {
                    return Err(err(path, format!("minLength {min} is above maxLength {max}")));
                }
                Ok(self.push(Node::String { min, max }, 2 + min))
            }
            "integer" => {
                let bound = |k: &str, default: i64| -> Result<i64, SchemaError> {
                    match get(k) {
                        None => Ok(default),
                        Some(Doc::Num(n)) => match (n.as_i64(), n.as_f64()) {
                            (Some(i), _) => Ok(i),
                            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.2e18 => Ok(f as i64),
                            _ => Err(err(path, format!("\"{k}\" {n} is not a 64-bit integer"))),
                        },
                        Some(_) => Err(err(path, format!("\"{k}\" must be a number"))),
                    }
                };
                let (min, max) = (bound("minimum", INT_RANGE.0)?, bound("maximum", INT_RANGE.1)?);
                if min > max {
                    return Err(err(path, format!("minimum {min} is above maximum {max}")));
                }
                let shortest = if min <= 0 && 0 <= max {
                    1
                } else if min > 0 {
                    min.to_string().len()
                } else {
                    max.to_string().len()
                };
                Ok(self.push(Node::Integer { min, max }, shortest))
            }
            "array" => {
                let (min, max) = (uint("minItems")?.unwrap_or(0), uint("maxItems")?.unwrap_or(usize::MAX));
                if min > max {
                    return Err(err(path, format!("minItems {min} is above maxItems {max}")));
                }
                let Some(items) = get("items") else {
                    return Err(err(path, "an array needs \"items\" (one schema for every item)"));
                };
                let items = self.node(items, &format!("{path}/items"), depth + 1)?;
                let item_len = self.min_len[items as usize];
                let len = 2 + min * item_len + min.saturating_sub(1);
                Ok(self.push(Node::Array { items, min, max }, len))
            }
            "object" => self.object(&get, path, depth),
            _ => unreachable!("checked above"),
        }
    }

    fn object<'d>(&mut self, get: &dyn Fn(&str) -> Option<&'d Doc>, path: &str, depth: usize) -> Result<NodeId, SchemaError> {
        match get("additionalProperties") {
            None | Some(Doc::Bool(false)) => {}
            Some(_) => return Err(err(path, "additionalProperties must be false or absent: the output has exactly the listed properties")),
        }
        let props_doc: &[(String, Doc)] = match get("properties") {
            Some(Doc::Obj(p)) => p,
            None => &[],
            Some(_) => return Err(err(path, "\"properties\" must be an object of schemas")),
        };
        if props_doc.len() > MAX_ALTERNATIVES {
            return Err(err(path, format!("more than {MAX_ALTERNATIVES} properties; split the object")));
        }
        let required: Vec<&str> = match get("required") {
            None => Vec::new(),
            Some(Doc::Arr(a)) => a
                .iter()
                .map(|r| match r {
                    Doc::Str(s) => Ok(s.as_str()),
                    _ => Err(err(path, "\"required\" must list property names")),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(err(path, "\"required\" must be an array of property names")),
        };
        if let Some(r) = required.iter().find(|r| !props_doc.iter().any(|(k, _)| k == *r)) {
            return Err(err(path, format!("required property {r:?} is not in \"properties\"")));
        }
        let mut props = Vec::new();
        for (name, sub) in props_doc {
            let node = self.node(sub, &format!("{path}/properties/{name}"), depth + 1)?;
            let key = serde_json::to_vec(&Value::String(name.clone())).expect("a string serializes");
            props.push(Prop { name: name.clone(), key, node, required: required.contains(&name.as_str()) });
        }
        let n = props.len();
        let (mut tail, mut first_required) = (vec![0; n + 1], vec![n; n + 1]);
        tail[n] = 1;
        for j in (0..n).rev() {
            let p = &props[j];
            // tail[j] is what follows property j-1's value: property j if required, then the rest.
            let own = if p.required { 1 + p.key.len() + 1 + self.min_len[p.node as usize] } else { 0 };
            tail[j] = tail[j + 1] + own;
            first_required[j] = if p.required { j } else { first_required[j + 1] };
        }
        // The first property written has no comma before it.
        let len = if first_required[0] < n { 1 + tail[0] - 1 } else { 2 };
        // Shift so tail[j] is what follows property j's value.
        let tail = tail[1..].to_vec();
        Ok(self.push(Node::Object(Object { props, tail, first_required }), len))
    }

    fn literals(&mut self, values: Vec<Value>, path: &str) -> Result<NodeId, SchemaError> {
        if values.is_empty() || values.len() > MAX_ALTERNATIVES {
            return Err(err(path, format!("enum needs 1 to {MAX_ALTERNATIVES} values, found {}", values.len())));
        }
        let bytes: Vec<Vec<u8>> = values.iter().map(|v| serde_json::to_vec(v).expect("a value serializes")).collect();
        let len = bytes.iter().map(Vec::len).min().unwrap_or(0);
        Ok(self.push(Node::Literals { bytes, values }, len))
    }
}

fn err(path: &str, msg: impl Into<String>) -> SchemaError {
    SchemaError { path: if path.is_empty() { "#".into() } else { path.into() }, msg: msg.into() }
}

/// JSON with objects as ordered lists, so `properties` keep the order they are written in.
#[derive(Clone, Debug)]
enum Doc {
    Null,
    Bool(bool),
    Num(serde_json::Number),
    Str(String),
    Arr(Vec<Doc>),
    Obj(Vec<(String, Doc)>),
}

impl From<&Value> for Doc {
    fn from(v: &Value) -> Doc {
        match v {
            Value::Null => Doc::Null,
            Value::Bool(b) => Doc::Bool(*b),
            Value::Number(n) => Doc::Num(n.clone()),
            Value::String(s) => Doc::Str(s.clone()),
            Value::Array(a) => Doc::Arr(a.iter().map(Doc::from).collect()),
            Value::Object(o) => Doc::Obj(o.iter().map(|(k, v)| (k.clone(), Doc::from(v))).collect()),
        }
    }
}

impl From<&Doc> for Value {
    fn from(d: &Doc) -> Value {
        match d {
            Doc::Null => Value::Null,
            Doc::Bool(b) => Value::Bool(*b),
            Doc::Num(n) => Value::Number(n.clone()),
            Doc::Str(s) => Value::String(s.clone()),
            Doc::Arr(a) => Value::Array(a.iter().map(Value::from).collect()),
            Doc::Obj(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), Value::from(v))).collect()),
        }
    }
}

impl<'de> Deserialize<'de> for Doc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Doc, D::Error> {
        d.deserialize_any(DocVisitor)
    }
}

struct DocVisitor;

impl<'de> Visitor<'de> for DocVisitor {
    type Value = Doc;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_unit<E>(self) -> Result<Doc, E> {
        Ok(Doc::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Doc, E> {
        Ok(Doc::Bool(b))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Doc, E> {
        Ok(Doc::Num(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Doc, E> {
        Ok(Doc::Num(v.into()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Doc, E> {
        serde_json::Number::from_f64(v).map(Doc::Num).ok_or_else(|| E::custom("number is not finite"))
    }
    fn visit_str<E>(self, s: &str) -> Result<Doc, E> {
        Ok(Doc::Str(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Doc, E> {
        Ok(Doc::Str(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Doc, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = seq.next_element()? {
            v.push(x);
        }
        Ok(Doc::Arr(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Doc, A::Error> {
        let mut v: Vec<(String, Doc)> = Vec::new();
        while let Some((k, x)) = map.next_entry::<String, Doc>()? {
            // Later duplicates win, as in serde_json.
            v.retain(|(old, _)| *old != k);
            v.push((k, x));
        }
        Ok(Doc::Obj(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_property_order_and_shortest_lengths() {
        let s = Schema::parse(
            r#"{"type": "object", "properties": {"zeta": {"type": "integer", "minimum": 10},
                "alpha": {"type": "string", "minLength": 2}, "mid": {"type": "boolean"}},
                "required": ["zeta", "alpha"], "description": "ignored"}"#,
        )
        .unwrap();
        let Node::Object(o) = &s.nodes[s.root as usize] else { panic!() };
        let names: Vec<&str> = o.props.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["zeta", "alpha", "mid"]);
        // {"zeta":10,"alpha":"aa"}
        assert_eq!(s.min_output_len(), r#"{"zeta":10,"alpha":"aa"}"#.len());
        assert_eq!(o.eligible(0), 0b001);
        assert_eq!(o.eligible(1), 0b010);
        assert_eq!(o.eligible(2), 0b100);
        assert!(!o.may_close(1) && o.may_close(2) && o.may_close(3));
        assert_eq!(o.tail[0], r#","alpha":"aa"}"#.len(), "comma, then the required alpha, then }}");
    }

    #[test]
    fn validates_shapes() {
        let s = Schema::parse(
            r#"{"type": "object", "properties": {"tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 2},
                "n": {"type": "integer", "minimum": 0, "maximum": 5}}, "required": ["n"]}"#,
        )
        .unwrap();
        assert!(s.validate(&serde_json::json!({"n": 3, "tags": ["a"]})).is_ok());
        assert!(s.validate(&serde_json::json!({"n": 3})).is_ok());
        assert!(s.validate(&serde_json::json!({"tags": []})).is_err());
        assert!(s.validate(&serde_json::json!({"n": 6})).is_err());
        assert!(s.validate(&serde_json::json!({"n": 1, "tags": ["c"]})).is_err());
        assert!(s.validate(&serde_json::json!({"n": 1, "tags": ["a", "a", "b"]})).is_err());
        assert!(s.validate(&serde_json::json!({"n": 1, "x": 1})).is_err());
    }

    #[test]
    fn errors_name_the_place_and_the_fix() {
        let e = Schema::parse(r#"{"type": "object", "properties": {"a": {"type": "string", "pattern": "x"}}}"#).unwrap_err();
        assert_eq!(e.path, "#/properties/a");
        assert!(e.msg.contains("pattern"), "{e}");
        assert!(Schema::parse(r#"{"type": ["string", "null"]}"#).is_err());
        assert!(Schema::parse(r#"{"type": "integer", "minimum": 5, "maximum": 1}"#).is_err());
        assert!(Schema::parse(r#"{"type": "object", "required": ["x"]}"#).is_err());
        assert!(Schema::parse(r#"{"enum": []}"#).is_err());
        assert!(Schema::parse(r#"{"type": "array"}"#).is_err());
    }
}
