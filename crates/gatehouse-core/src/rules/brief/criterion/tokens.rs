//! A criterion split into what the rubric reads: code spans, quoted
//! strings, words, and the breaks where an explanation starts.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Word,
    Code,
    Quote,
    /// Where an explanation starts: `:`, `;`, `—`, `(`, `e.g.`, `i.e.`.
    Break,
}

#[derive(Clone, Debug)]
pub(super) struct Token<'a> {
    pub(super) kind: Kind,
    /// As written (without surrounding punctuation).
    pub(super) raw: &'a str,
    /// Lower-cased, for word lists.
    pub(super) word: String,
}

/// Splits a criterion into code spans, quoted strings, words and breaks.
pub(super) fn tokenize(text: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut plain_start = 0;
    let mut i = 0;
    while i < text.len() {
        let c = text[i..].chars().next().expect("in bounds");
        let close = match c {
            '`' => Some(('`', Kind::Code)),
            '"' => Some(('"', Kind::Quote)),
            '“' => Some(('”', Kind::Quote)),
            '\'' if text[..i].chars().last().is_none_or(|p| !p.is_alphanumeric()) => Some(('\'', Kind::Quote)),
            _ => None,
        };
        if let Some((close, kind)) = close {
            let start = i + c.len_utf8();
            let end = text[start..].find(close).map(|e| start + e);
            if let Some(end) = end.filter(|e| *e > start) {
                words(&text[plain_start..i], &mut tokens);
                tokens.push(Token { kind, raw: &text[start..end], word: text[start..end].to_lowercase() });
                i = end + close.len_utf8();
                plain_start = i;
                continue;
            }
        }
        i += c.len_utf8();
    }
    words(&text[plain_start..], &mut tokens);
    tokens
}

/// Splits plain text at whitespace into words, trimming punctuation, and
/// marks where an explanation starts.
fn words<'a>(text: &'a str, out: &mut Vec<Token<'a>>) {
    for chunk in text.split_whitespace() {
        if matches!(chunk, "—" | "–" | "-" | "--" | "e.g." | "i.e." | "e.g.," | "i.e.,") {
            out.push(Token { kind: Kind::Break, raw: chunk, word: String::new() });
            continue;
        }
        if chunk.starts_with('(') {
            out.push(Token { kind: Kind::Break, raw: "(", word: String::new() });
        }
        let trailing = |c: char| matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | ')' | '\'' | '"');
        let word = chunk.trim_start_matches(['(', '\'', '"']).trim_end_matches(trailing);
        if !word.is_empty() {
            out.push(Token { kind: Kind::Word, raw: word, word: word.to_lowercase() });
        }
        let tail = &chunk[chunk.trim_end_matches(trailing).len()..];
        if tail.contains([':', ';']) {
            out.push(Token { kind: Kind::Break, raw: tail, word: String::new() });
        }
    }
}
