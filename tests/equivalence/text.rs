//! A document as lines with the zone each is in (front matter, fence,
//! markdown, YAML), and the small readers the rewrites share.

/// What a line is part of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zone {
    /// The `---` that opens front matter, and the one that closes it.
    FrontOpen,
    FrontClose,
    /// A front matter line (YAML).
    Front,
    /// A fence's opening and closing lines.
    FenceOpen,
    FenceClose,
    /// A fenced block's line; `YamlFence` in a `voting` or `yaml` block.
    Fence,
    YamlFence,
    /// A markdown line outside front matter and fences.
    Md,
    /// A line of a YAML file.
    Yaml,
}

impl Zone {
    pub fn is_yaml(self) -> bool {
        matches!(self, Zone::Front | Zone::YamlFence | Zone::Yaml)
    }
}

pub struct Doc {
    pub lines: Vec<String>,
    pub zones: Vec<Zone>,
    /// The line ending the text uses.
    nl: &'static str,
    /// Whether the text ends with a line ending.
    trailing: bool,
    bom: bool,
}

impl Doc {
    /// Reads `text`, at `path`: a `.yml`/`.yaml` file is YAML throughout.
    pub fn of(path: &str, text: &str) -> Doc {
        let bom = text.starts_with('\u{feff}');
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let zones = if path.ends_with(".yml") || path.ends_with(".yaml") {
            vec![Zone::Yaml; lines.len()]
        } else {
            zones(&lines)
        };
        Doc { lines, zones, nl, trailing: text.ends_with('\n'), bom }
    }

    pub fn join(&self) -> String {
        let mut out = String::new();
        if self.bom {
            out.push('\u{feff}');
        }
        for line in &self.lines {
            out.push_str(line);
            out.push_str(self.nl);
        }
        if !self.trailing {
            out.truncate(out.len() - self.nl.len().min(out.len()));
        }
        out
    }

    /// Inserts `line(k)` before the line at each of `at` (ascending).
    pub fn insert_before(self, at: &[usize], line: impl Fn(usize) -> String) -> Option<(String, super::LineMap)> {
        self.insert(at, 0, line)
    }

    /// Inserts `line(k)` after the line at each of `at` (ascending).
    pub fn insert_after(self, at: &[usize], line: impl Fn(usize) -> String) -> Option<(String, super::LineMap)> {
        self.insert(at, 1, line)
    }

    fn insert(
        mut self,
        at: &[usize],
        after: usize,
        line: impl Fn(usize) -> String,
    ) -> Option<(String, super::LineMap)> {
        if at.is_empty() {
            return None;
        }
        let mut out = Vec::new();
        let mut zones = Vec::new();
        let mut map = Vec::new();
        let mut next = 0;
        for (i, text) in self.lines.iter().enumerate() {
            let here = next < at.len() && at[next] == i;
            if here && after == 0 {
                out.push(line(next));
                zones.push(self.zones[i]);
            }
            map.push(out.len() as u32 + 1);
            out.push(text.clone());
            zones.push(self.zones[i]);
            if here {
                if after == 1 {
                    out.push(line(next));
                    zones.push(self.zones[i]);
                }
                next += 1;
            }
        }
        self.replace_lines(out, zones);
        Some((self.join(), super::LineMap::lines(map)))
    }

    /// Appends a blank line and `lines` at the end.
    pub fn append(&mut self, lines: &[String]) {
        self.lines.push(String::new());
        self.zones.push(Zone::Md);
        for line in lines {
            self.lines.push(line.clone());
            self.zones.push(Zone::Md);
        }
        self.trailing = true;
    }

    pub fn replace_lines(&mut self, lines: Vec<String>, zones: Vec<Zone>) {
        self.lines = lines;
        self.zones = zones;
    }
}

/// The zone of each line of a markdown text.
fn zones(lines: &[String]) -> Vec<Zone> {
    let mut out = vec![Zone::Md; lines.len()];
    let mut i = 0;
    if lines.first().is_some_and(|l| l.trim_end() == "---")
        && let Some(close) = (1..lines.len()).find(|&j| matches!(lines[j].trim_end(), "---" | "..."))
    {
        out[0] = Zone::FrontOpen;
        for zone in &mut out[1..close] {
            *zone = Zone::Front;
        }
        out[close] = Zone::FrontClose;
        i = close + 1;
    }
    while i < lines.len() {
        let line = &lines[i];
        let t = line.trim_start();
        let marker = t.chars().next().filter(|c| matches!(c, '`' | '~'));
        let run = marker.map_or(0, |m| t.chars().take_while(|c| *c == m).count());
        if line.len() - t.len() >= 4 || run < 3 || (marker == Some('`') && t[run..].contains('`')) {
            i += 1;
            continue;
        }
        let marker = marker.unwrap_or('`');
        let info = t[run..].trim();
        let body = if matches!(info.split_whitespace().next(), Some("voting" | "yaml" | "yml")) {
            Zone::YamlFence
        } else {
            Zone::Fence
        };
        out[i] = Zone::FenceOpen;
        let mut j = i + 1;
        while j < lines.len() {
            let c = lines[j].trim();
            if c.len() >= run && c.chars().all(|ch| ch == marker) {
                out[j] = Zone::FenceClose;
                break;
            }
            out[j] = body;
            j += 1;
        }
        i = j + 1;
    }
    out
}

/// A GFM delimiter row: cells of `-` with optional `:` at either end.
pub fn is_delimiter_row(line: &str) -> bool {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    !t.is_empty()
        && t.split('|').all(|cell| {
            let c = cell.trim();
            let c = c.strip_prefix(':').unwrap_or(c);
            let c = c.strip_suffix(':').unwrap_or(c);
            !c.is_empty() && c.bytes().all(|b| b == b'-')
        })
}

/// `relative` resolved against `folder`; `None` above the root. Written
/// apart from the brief reader's resolver on purpose: the rewrite it makes
/// is the oracle that resolver is checked against.
pub fn resolve(folder: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    for segment in relative.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    let mut out = parts.join("/");
    if relative.ends_with('/') {
        out.push('/');
    }
    (!out.is_empty()).then_some(out)
}

/// A prose line with typographic quotes and apostrophes, when it has
/// straight ones outside code, links and HTML.
pub fn typographic(line: &str) -> Option<String> {
    if line.contains(['`', '<', '\\']) || line.contains("](") || line.matches('"').count() % 2 == 1 {
        return None;
    }
    let chars: Vec<char> = line.chars().collect();
    let mut open = true;
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '"' => {
                out.push(if open { '\u{201c}' } else { '\u{201d}' });
                open = !open;
            }
            '\'' if i > 0
                && chars[i - 1].is_alphanumeric()
                && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric()) =>
            {
                out.push('\u{2019}')
            }
            c => out.push(c),
        }
    }
    (out != line).then_some(out)
}

/// Whether a token would open a block of its own at the start of a line
/// (CM §4–§5), so a wrapped line must not start with it.
fn opens_block(token: &str) -> bool {
    let digits = token.bytes().take_while(u8::is_ascii_digit).count();
    token.starts_with(['-', '+', '*', '#', '>', '=', '|', '<', '[', '_', '!'])
        || token.starts_with("```")
        || token.starts_with("~~~")
        || (digits > 0 && token[digits..].starts_with(['.', ')']))
}

/// A paragraph's lines wrapped at `width`, never inside a code span or a
/// link, and for each old line the first and last new line (0-based) its
/// words are on.
pub fn wrap(lines: &[String], width: usize) -> (Vec<String>, Vec<(u32, u32)>) {
    // Units: words joined while a code span or a link is open in them, each
    // with the old lines its words come from.
    let mut units: Vec<(String, Vec<usize>)> = Vec::new();
    let mut open = false;
    for (k, line) in lines.iter().enumerate() {
        for word in line.split_whitespace() {
            match units.last_mut() {
                Some((unit, from)) if open => {
                    unit.push(' ');
                    unit.push_str(word);
                    from.push(k);
                }
                _ => units.push((word.to_string(), vec![k])),
            }
            let unit = units.last().map(|(u, _)| u.as_str()).unwrap_or("");
            open = unit.matches('`').count() % 2 == 1
                || unit.matches('[').count() > unit.matches(']').count()
                || unit.matches('(').count() > unit.matches(')').count() && unit.contains("](");
        }
    }
    let mut out: Vec<String> = Vec::new();
    let mut spans: Vec<Option<(u32, u32)>> = vec![None; lines.len()];
    for (unit, from) in units {
        let fits = out.last().is_some_and(|l| l.len() + 1 + unit.len() <= width);
        match out.last_mut() {
            Some(last) if fits || opens_block(&unit) => {
                last.push(' ');
                last.push_str(&unit);
            }
            _ => out.push(unit),
        }
        let at = out.len() as u32 - 1;
        for k in from {
            let span = spans[k].get_or_insert((at, at));
            span.1 = at;
        }
    }
    let spans = spans.into_iter().map(|s| s.unwrap_or((0, 0))).collect();
    (out, spans)
}

/// A YAML line's text up to its value, and the value: `key: value`,
/// `- value`, `- key: value`; `None` for a line without a value on it, a
/// comment, or a value with a comment after it.
pub fn yaml_value(line: &str) -> Option<(&str, &str)> {
    let t = line.trim_start();
    if t.starts_with('#') {
        return None;
    }
    let mut at = line.len() - t.len();
    if let Some(rest) = t.strip_prefix("- ") {
        at += 2 + (rest.len() - rest.trim_start().len());
    }
    let rest = &line[at..];
    let key = rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')).count();
    if key > 0 && rest[key..].starts_with(": ") {
        at += key + 2;
    } else if at == line.len() - t.len() {
        return None;
    }
    let value = line[at..].trim();
    if value.is_empty() || value.contains(" #") || value.trim_end().ends_with(':') {
        return None;
    }
    let start = at + (line[at..].len() - line[at..].trim_start().len());
    Some((&line[..start], value))
}

/// A plain scalar on one line (YAML 1.2.2 §7.3.3), with no `: ` or ` #`.
pub fn plain(value: &str) -> bool {
    !value.starts_with(['"', '\'', '[', '{', '|', '>', '&', '*', '!', '%', '@', '`', '-', '?', ':', ','])
        && !value.contains(": ")
        && !value.contains(" #")
}

/// A plain scalar the core schema (YAML 1.2.2 §10.3.2) reads as a string,
/// quotable without escapes.
pub fn stringy(value: &str) -> bool {
    let keyword =
        matches!(value, "null" | "Null" | "NULL" | "~" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE");
    let number = value.parse::<f64>().is_ok()
        || value.starts_with("0x")
        || value.starts_with("0o")
        || matches!(value.to_ascii_lowercase().trim_start_matches(['+', '-']), ".inf" | ".nan");
    plain(value) && !keyword && !number && !value.contains(['"', '\'', '\\'])
}

/// A sequence entry that may be written in flow style as it is.
pub fn flowable(item: &str) -> bool {
    let item = item.trim();
    !item.is_empty()
        && !item.contains([',', '[', ']', '{', '}', '#'])
        && !item.contains(": ")
        && !item.ends_with(':')
        && !item.starts_with(['&', '*', '!', '|', '>', '-', '?'])
}

/// `key: [a, b]` as its head (`key:`) and entries.
pub fn flow_items(line: &str) -> Option<(&str, Vec<String>)> {
    let (head, value) = yaml_value(line)?;
    let inner = value.strip_prefix('[')?.strip_suffix(']')?;
    if inner.trim().is_empty() || !head.trim_end().ends_with(':') {
        return None;
    }
    let items: Vec<String> = inner.split(',').map(|i| i.trim().to_string()).collect();
    items.iter().all(|i| flowable(i)).then_some((head, items))
}

/// An RFC 3339 date-time written plainly: (date, time, zone).
pub fn timestamp(value: &str) -> Option<(&str, &str, &str)> {
    let b = value.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let zone_at = value[19..].find(['Z', '+', '-']).map(|z| 19 + z)?;
    let zone = &value[zone_at..];
    let zone_ok = zone == "Z" || (zone.len() == 6 && zone.as_bytes()[3] == b':');
    zone_ok.then(|| (&value[..10], &value[11..zone_at], zone))
}
