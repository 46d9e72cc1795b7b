//! A small JSON reader that keeps a line and column on every value and key
//! (serde_json does not give positions). Strict RFC 8259, bounded: nesting
//! depth is capped and every step consumes input, so cost is linear in the
//! text and no input panics. Errors point at the line at fault: a missing
//! comma at the value it should follow, a trailing comma at the comma.

/// The deepest nesting a document may use. Decision manifests use three.
pub const MAX_DEPTH: usize = 32;

#[derive(Clone, Debug, PartialEq)]
pub struct Json {
    pub kind: JsonKind,
    /// 1-based line of the value's first character.
    pub line: u32,
    /// 1-based column (in characters) of the value's first character.
    pub col: u32,
    /// The value's bytes in the text (after a leading byte-order mark).
    pub bytes: std::ops::Range<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum JsonKind {
    Null,
    Bool(bool),
    /// The number as written (already checked against the JSON grammar).
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<Member>),
}

/// One `"key": value` pair of an object, in file order (duplicates kept).
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub key: String,
    pub line: u32,
    pub col: u32,
    pub value: Json,
}

/// Why a text is not JSON, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {col}: {message}")]
pub struct JsonError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl Json {
    pub fn type_name(&self) -> &'static str {
        match &self.kind {
            JsonKind::Null => "null",
            JsonKind::Bool(_) => "a boolean",
            JsonKind::Number(_) => "a number",
            JsonKind::String(_) => "a string",
            JsonKind::Array(_) => "an array",
            JsonKind::Object(_) => "an object",
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            JsonKind::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value of a number written as an integer (no fraction, no exponent).
    pub fn as_i64(&self) -> Option<i64> {
        match &self.kind {
            JsonKind::Number(n) => n.parse().ok(),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json]> {
        match &self.kind {
            JsonKind::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&[Member]> {
        match &self.kind {
            JsonKind::Object(members) => Some(members),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.kind, JsonKind::Null)
    }

    /// The first member named `key` of an object.
    pub fn member(&self, key: &str) -> Option<&Member> {
        self.as_object()?.iter().find(|m| m.key == key)
    }

    pub fn get(&self, key: &str) -> Option<&Json> {
        self.member(key).map(|m| &m.value)
    }

    /// The value as it would be shown in a message: strings quoted, others as written.
    pub fn show(&self) -> String {
        match &self.kind {
            JsonKind::Null => "null".into(),
            JsonKind::Bool(b) => b.to_string(),
            JsonKind::Number(n) => n.clone(),
            JsonKind::String(s) => format!("{s:?}"),
            JsonKind::Array(_) => "an array".into(),
            JsonKind::Object(_) => "an object".into(),
        }
    }
}

/// Parses one JSON text (a leading byte-order mark is allowed).
pub fn parse(text: &str) -> Result<Json, JsonError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = Reader { bytes: text.as_bytes(), pos: 0, line: 1, col: 1, last_end: (1, 1) };
    reader.skip_space()?;
    if reader.peek().is_none() {
        return Err(reader.error_here("the file is empty; expected a JSON object"));
    }
    let value = reader.value(0)?;
    reader.skip_space()?;
    if let Some(b) = reader.peek() {
        return Err(reader.error_here(&format!("unexpected {} after the end of the JSON value", describe(b))));
    }
    Ok(value)
}

struct Reader<'t> {
    bytes: &'t [u8],
    pos: usize,
    line: u32,
    col: u32,
    /// Where the last complete value ended (line, column after it): a
    /// missing comma is reported there, on the line that needs it.
    last_end: (u32, u32),
}

/// A byte as a message names it.
fn describe(b: u8) -> String {
    match b {
        b'\n' => "end of line".into(),
        b if b.is_ascii_graphic() => format!("`{}`", b as char),
        b if b < 0x80 => format!("byte 0x{b:02x}"),
        _ => "a non-ASCII character".into(),
    }
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Consumes one byte, keeping the line and the character column.
    fn bump(&mut self) {
        let Some(b) = self.peek() else { return };
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
            self.col = 1;
        } else if b & 0xC0 != 0x80 {
            // Continuation bytes of a UTF-8 character do not start a column.
            self.col += 1;
        }
    }

    fn error_at(&self, line: u32, col: u32, message: &str) -> JsonError {
        JsonError { line, col, message: message.to_string() }
    }

    fn error_here(&self, message: &str) -> JsonError {
        self.error_at(self.line, self.col, message)
    }

    fn skip_space(&mut self) -> Result<(), JsonError> {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.bump(),
                b'/' if matches!(self.bytes.get(self.pos + 1), Some(b'/' | b'*')) => {
                    return Err(self.error_here("JSON has no comments; remove this comment"));
                }
                _ => break,
            }
        }
        Ok(())
    }

    fn value(&mut self, depth: usize) -> Result<Json, JsonError> {
        let (line, col, start) = (self.line, self.col, self.pos);
        let Some(b) = self.peek() else {
            return Err(self.error_here("the file ends where a value was expected"));
        };
        let kind = match b {
            b'{' | b'[' if depth >= MAX_DEPTH => {
                return Err(
                    self.error_here(&format!("nesting deeper than {MAX_DEPTH} levels; no decision manifest needs it"))
                );
            }
            b'{' => self.object(depth)?,
            b'[' => self.array(depth)?,
            b'"' => JsonKind::String(self.string()?),
            b'-' | b'0'..=b'9' => JsonKind::Number(self.number()?),
            b'\'' => return Err(self.error_here("JSON strings use double quotes, not single quotes")),
            b if b.is_ascii_alphabetic() => self.literal()?,
            b => return Err(self.error_here(&format!("unexpected {} where a value was expected", describe(b)))),
        };
        self.last_end = (self.line, self.col);
        Ok(Json { kind, line, col, bytes: start..self.pos })
    }

    fn literal(&mut self) -> Result<JsonKind, JsonError> {
        let (line, col) = (self.line, self.col);
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
            self.bump();
        }
        let word = std::str::from_utf8(&self.bytes[start..self.pos]).unwrap_or("");
        match word {
            "true" => Ok(JsonKind::Bool(true)),
            "false" => Ok(JsonKind::Bool(false)),
            "null" => Ok(JsonKind::Null),
            _ => Err(self.error_at(
                line,
                col,
                &format!("unexpected `{word}`; JSON values are strings in double quotes, numbers, true, false, null, objects or arrays"),
            )),
        }
    }

    fn number(&mut self) -> Result<String, JsonError> {
        let (line, col) = (self.line, self.col);
        let start = self.pos;
        let bad = |r: &Self| r.error_at(line, col, "malformed number; JSON numbers look like -12, 0, 3.5 or 1e3");
        if self.peek() == Some(b'-') {
            self.bump();
        }
        match self.peek() {
            Some(b'0') => self.bump(),
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(bad(self)),
        }
        if self.peek() == Some(b'.') {
            self.bump();
            if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
                return Err(bad(self));
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.bump();
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.bump();
            }
            if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
                return Err(bad(self));
            }
            self.digits();
        }
        if self.peek().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.') {
            return Err(bad(self));
        }
        Ok(String::from_utf8_lossy(&self.bytes[start..self.pos]).into_owned())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.bump();
        }
    }

    fn string(&mut self) -> Result<String, JsonError> {
        let (line, col) = (self.line, self.col);
        self.bump(); // the opening quote
        let mut out = String::new();
        loop {
            let start = self.pos;
            while self.peek().is_some_and(|b| b != b'"' && b != b'\\' && b >= 0x20) {
                self.bump();
            }
            // Runs end on ASCII bytes only, so they are whole UTF-8 characters.
            out.push_str(std::str::from_utf8(&self.bytes[start..self.pos]).unwrap_or(""));
            match self.peek() {
                Some(b'"') => {
                    self.bump();
                    return Ok(out);
                }
                Some(b'\\') => self.escape(&mut out)?,
                Some(b'\n') | None => {
                    return Err(self.error_at(
                        line,
                        col,
                        "unterminated string: the closing `\"` is missing on this line",
                    ));
                }
                Some(_) => {
                    return Err(self.error_here("control character inside a string; write it as an escape such as \\t"));
                }
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), JsonError> {
        let (line, col) = (self.line, self.col);
        self.bump(); // the backslash
        let Some(b) = self.peek() else {
            return Err(self.error_at(line, col, "the file ends inside an escape sequence"));
        };
        self.bump();
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let high = self.hex4(line, col)?;
                let code = if (0xD800..0xDC00).contains(&high) {
                    if self.peek() != Some(b'\\') || self.bytes.get(self.pos + 1) != Some(&b'u') {
                        return Err(self.error_at(
                            line,
                            col,
                            "a \\u escape for a high surrogate must be followed by its low surrogate",
                        ));
                    }
                    self.bump();
                    self.bump();
                    let low = self.hex4(line, col)?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return Err(self.error_at(line, col, "invalid surrogate pair in \\u escapes"));
                    }
                    0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    high
                };
                char::from_u32(code)
                    .ok_or_else(|| self.error_at(line, col, "a \\u escape names a lone surrogate, not a character"))?
            }
            _ => return Err(self.error_at(line, col, &format!("invalid escape `\\{}`", b as char))),
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self, line: u32, col: u32) -> Result<u32, JsonError> {
        let mut code = 0;
        for _ in 0..4 {
            let digit = self.peek().and_then(|b| (b as char).to_digit(16));
            let Some(digit) = digit else {
                return Err(self.error_at(line, col, "a \\u escape needs four hex digits"));
            };
            self.bump();
            code = code * 16 + digit;
        }
        Ok(code)
    }

    /// After a value inside a container: `,` or the closing bracket.
    /// Returns true when the container continues.
    fn separator(&mut self, close: u8, opened: (u32, u32), what: &str) -> Result<bool, JsonError> {
        self.skip_space()?;
        match self.peek() {
            Some(b',') => {
                let (line, col) = (self.line, self.col);
                self.bump();
                self.skip_space()?;
                if self.peek() == Some(close) {
                    return Err(self.error_at(
                        line,
                        col,
                        &format!("trailing comma before `{}`; remove it", close as char),
                    ));
                }
                Ok(true)
            }
            Some(b) if b == close => {
                self.bump();
                Ok(false)
            }
            None => Err(self.error_here(&format!("the file ends inside the {what} opened at line {}", opened.0))),
            Some(b'"' | b'{' | b'[') | Some(b'0'..=b'9') => {
                let (line, col) = self.last_end;
                Err(self.error_at(
                    line,
                    col,
                    &format!("missing `,` after this value in the {what} opened at line {}", opened.0),
                ))
            }
            Some(b) => Err(self.error_here(&format!("expected `,` or `{}`, found {}", close as char, describe(b)))),
        }
    }

    fn array(&mut self, depth: usize) -> Result<JsonKind, JsonError> {
        let opened = (self.line, self.col);
        self.bump();
        self.skip_space()?;
        let mut items = Vec::new();
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(JsonKind::Array(items));
        }
        loop {
            self.skip_space()?;
            items.push(self.value(depth + 1)?);
            if !self.separator(b']', opened, "array")? {
                return Ok(JsonKind::Array(items));
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<JsonKind, JsonError> {
        let opened = (self.line, self.col);
        self.bump();
        self.skip_space()?;
        let mut members = Vec::new();
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(JsonKind::Object(members));
        }
        loop {
            self.skip_space()?;
            let (line, col) = (self.line, self.col);
            let key = match self.peek() {
                Some(b'"') => self.string()?,
                None => {
                    return Err(
                        self.error_here(&format!("the file ends inside the object opened at line {}", opened.0))
                    );
                }
                Some(b'\'') => return Err(self.error_here("JSON keys use double quotes, not single quotes")),
                Some(b) => {
                    return Err(self.error_here(&format!("expected a key in double quotes, found {}", describe(b))));
                }
            };
            self.skip_space()?;
            match self.peek() {
                Some(b':') => self.bump(),
                Some(b) => {
                    return Err(self.error_here(&format!("expected `:` after the key `{key}`, found {}", describe(b))));
                }
                None => return Err(self.error_here(&format!("the file ends after the key `{key}`"))),
            }
            self.skip_space()?;
            let value = self.value(depth + 1)?;
            members.push(Member { key, line, col, value });
            if !self.separator(b'}', opened, "object")? {
                return Ok(JsonKind::Object(members));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn err(text: &str) -> (u32, u32, String) {
        let e = parse(text).expect_err("should not parse");
        (e.line, e.col, e.message)
    }

    #[test]
    fn values_and_keys_carry_lines_and_columns() {
        let doc =
            parse("{\n  \"a\": 1,\n  \"é\": [true, null, \"x\\u00e9\\ud83d\\ude00\"],\n  \"c\": {\"d\": -1.5e3}\n}\n")
                .unwrap();
        let a = doc.member("a").unwrap();
        assert_eq!((a.line, a.col, a.value.line, a.value.col), (2, 3, 2, 8));
        assert_eq!(a.value.as_i64(), Some(1));
        let list = doc.get("é").unwrap().as_array().unwrap();
        assert_eq!((list[2].line, list[2].col), (3, 21));
        assert_eq!(list[2].as_str(), Some("xé😀"));
        assert_eq!(doc.get("c").unwrap().get("d").unwrap().kind, JsonKind::Number("-1.5e3".into()));
        assert_eq!(doc.get("c").unwrap().get("d").unwrap().as_i64(), None);
    }

    #[test]
    fn errors_point_at_the_line_at_fault() {
        assert_eq!(err("{\n  \"a\": \"x\"\n  \"b\": 1\n}").0, 2, "missing comma: on the line that needs it");
        assert_eq!(err("{\n  \"a\": 1,\n}\n").0, 2, "trailing comma: at the comma");
        assert_eq!(err("{\n  \"a\": tru\n}").0, 2);
        assert_eq!(err("{\n  \"a\": \"open\n}").0, 2);
        assert_eq!(err("{\n  // note\n  \"a\": 1\n}").0, 2);
        assert_eq!(err("{\n  \"a\": 1\n").0, 3, "truncated: where the file ends");
        assert_eq!(err("{\"a\": 1} x").2, "unexpected `x` after the end of the JSON value");
        assert_eq!(err("   \n").2, "the file is empty; expected a JSON object");
        assert_eq!(err("{'a': 1}").0, 1);
        assert_eq!(err("[01]").0, 1);
        assert_eq!(err("[\"\\ud800\"]").0, 1);
        assert_eq!(err("[\"a\tb\"]").0, 1);
    }

    #[test]
    fn depth_is_bounded() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&deep).is_ok());
        let line = 5;
        let deeper = format!("{}{}", "\n".repeat(line - 1), "[".repeat(100_000));
        let (l, _, message) = err(&deeper);
        assert_eq!(l, line as u32);
        assert!(message.contains("nesting deeper than 32"), "{message}");
    }

    #[test]
    fn duplicate_keys_are_kept_in_order() {
        let doc = parse("{\"a\": 1, \"a\": 2}").unwrap();
        assert_eq!(doc.as_object().unwrap().len(), 2);
        assert_eq!(doc.get("a").unwrap().as_i64(), Some(1));
    }

    #[test]
    fn a_large_document_parses() {
        let items: Vec<String> = (0..50_000).map(|i| format!("\"evidence item {i}\"")).collect();
        let text = format!("{{\"evidence\": [{}]}}", items.join(",\n"));
        assert_eq!(parse(&text).unwrap().get("evidence").unwrap().as_array().unwrap().len(), 50_000);
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
            let _ = parse(&text);
        }

        #[test]
        fn json_like_text_never_panics(text in "[{}\\[\\]\",:0-9a-z\\\\ \n.eE+-]{0,120}") {
            let _ = parse(&text);
        }

        #[test]
        fn agrees_with_serde_json_on_validity(text in "[{}\\[\\]\",:0-9a-z \n.-]{0,60}") {
            let ours = parse(&text).is_ok();
            let theirs = serde_json::from_str::<serde_json::Value>(&text).is_ok();
            prop_assert_eq!(ours, theirs, "{:?}", text);
        }
    }
}
