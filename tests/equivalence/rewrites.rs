//! Rewrites that keep a document the same document, each with the clause of
//! its format's standard that says so: CommonMark 0.31 (CM), GitHub Flavored
//! Markdown 0.29 (GFM), YAML 1.2.2 and RFC 3339. A rewrite returns the new
//! text and where each old line went, or `None` when it does not apply.

#[path = "text.rs"]
mod text;
#[path = "yaml.rs"]
mod yaml;

use text::{Doc, Zone, is_delimiter_row, resolve};

/// Where each line of the old text is in the new one: the first and last
/// new line its text is on (a wrapped line may spread over several, a flow
/// sequence's entries over the block's lines).
pub struct LineMap(Option<Vec<(u32, u32)>>);

impl LineMap {
    fn same() -> LineMap {
        LineMap(None)
    }

    fn lines(map: Vec<u32>) -> LineMap {
        LineMap(Some(map.into_iter().map(|l| (l, l)).collect()))
    }

    /// The new lines of old line `line` (1-based).
    pub fn get(&self, line: u32) -> (u32, u32) {
        match &self.0 {
            None => (line, line),
            Some(map) => match map.get(line.saturating_sub(1) as usize) {
                Some(new) => *new,
                None => map.last().map_or((line, line), |last| {
                    let l = last.1 + line - map.len() as u32;
                    (l, l)
                }),
            },
        }
    }
}

pub struct Rewrite {
    pub name: &'static str,
    /// Which files it rewrites, by path.
    pub applies: fn(&str) -> bool,
    /// The file's path (for relative links) and text.
    pub apply: fn(&str, &str) -> Option<(String, LineMap)>,
}

/// Markdown files.
fn markdown(path: &str) -> bool {
    path.ends_with(".md")
}

/// Text files of every family but JSON (RFC 8259 §8.1: a JSON text is not
/// to start with a byte-order mark).
fn not_json(path: &str) -> bool {
    !path.ends_with(".json")
}

fn any(_: &str) -> bool {
    true
}

/// Markdown whose paragraphs are prose. The fondue engine's own files
/// (`roster.md`, `landed.md`, `stats.md`, `99-user.md`, `review/…`) are line
/// formats: the engine reads each line (`**Skill:** spec`, then
/// `**Sessions:** fresh` under it), and two of them joined are not the
/// engine's format, whatever CommonMark renders.
fn prose(path: &str) -> bool {
    markdown(path) && engine_file(path).is_none_or(|rel| rel.starts_with("pre-plan/") || rel.starts_with("plan/"))
}

/// A fondue spec's file, as its path in the spec folder.
fn engine_file(path: &str) -> Option<&str> {
    let rest = path.split_once("fondue/specs/")?.1;
    let rest = rest.strip_prefix("archive/").unwrap_or(rest);
    Some(rest.split_once('/')?.1)
}

/// Markdown whose headings and labels are free text: all but the engine's
/// line grammars `99-user.md` (`## <date> <state>`) and `landed.md`.
fn headed(path: &str) -> bool {
    markdown(path) && !path.ends_with("99-user.md") && !path.ends_with("landed.md")
}

/// Files holding YAML: briefs' and voting docs' front matter and `voting`
/// blocks, and the config.
fn yaml(path: &str) -> bool {
    markdown(path) || path.ends_with(".yml") || path.ends_with(".yaml")
}

fn voting(path: &str) -> bool {
    path.contains("/guidelines/") && path.contains("@v")
}

pub const REWRITES: &[Rewrite] = &[
    // CM §2.1 and YAML 1.2.2 §5.4: a line ending is `\n`, `\r\n` or `\r`.
    Rewrite {
        name: "crlf",
        applies: any,
        apply: |_, t| Some((t.replace("\r\n", "\n").replace('\n', "\r\n"), LineMap::same())),
    },
    // YAML 1.2.2 §5.2: a stream may begin with a byte-order mark; GitHub
    // renders Markdown after one as without.
    Rewrite {
        name: "bom",
        applies: not_json,
        apply: |_, t| (!t.starts_with('\u{feff}')).then(|| (format!("\u{feff}{t}"), LineMap::same())),
    },
    // CM §4.8 and §6.7: spaces at the end of a paragraph's line are not its
    // content (one space is no hard break: that takes two, §6.6).
    Rewrite {
        name: "trailing space",
        applies: markdown,
        apply: |p, t| Doc::of(p, t).each_md_line(|l| (!l.trim().is_empty()).then(|| format!("{l} "))),
    },
    // CM §5.2: a bullet list marker is `-`, `+` or `*`; all items change
    // together, so no list is split (§5.3).
    Rewrite { name: "bullets *", applies: markdown, apply: |p, t| Doc::of(p, t).bullets('*') },
    Rewrite { name: "bullets +", applies: markdown, apply: |p, t| Doc::of(p, t).bullets('+') },
    Rewrite { name: "bullets -", applies: markdown, apply: |p, t| Doc::of(p, t).bullets('-') },
    // CM §5.2 and §5.3: an ordered list item holds its blocks as a bullet
    // item does; the items, their text and their lines are the same. Only
    // lists of one-line items change (a marker of another width would move
    // a continuation line's indentation).
    Rewrite { name: "bullets 1.", applies: markdown, apply: |p, t| Doc::of(p, t).ordered() },
    // CM §6.2: `__` delimits strong emphasis as `**` does.
    Rewrite {
        name: "__label:__",
        applies: headed,
        apply: |p, t| Doc::of(p, t).labels(|name, rest| format!("__{name}:__{rest}")),
    },
    // CM §6.2: emphasis is how the label looks; its text `Name:` is the same
    // with the colon inside the bold or after it.
    Rewrite {
        name: "**label**:",
        applies: headed,
        apply: |p, t| Doc::of(p, t).labels(|name, rest| format!("**{name}**:{rest}")),
    },
    // CM §4.5: a fence is three or more backticks or tildes.
    Rewrite {
        name: "~~~ fences",
        applies: markdown,
        apply: |p, t| Doc::of(p, t).fences(|run, info| format!("{}{info}", "~".repeat(run.len()))),
    },
    // CM §4.5: a longer fence closes only on as long a run; the info string
    // is trimmed of the spaces before it.
    Rewrite {
        name: "```` fences, spaced info",
        applies: markdown,
        apply: |p, t| Doc::of(p, t).fences(|run, info| format!("{run}{} {info}", &run[..1])),
    },
    // GFM §4.10: the pipes at the start and end of a table's rows are
    // optional, and a delimiter row may align its columns.
    Rewrite { name: "table pipes", applies: markdown, apply: |p, t| Doc::of(p, t).tables() },
    // GFM alerts: `> [!NOTE]` makes a blockquote an alert; its text is the
    // same quoted text.
    Rewrite { name: "alerts", applies: prose, apply: |p, t| Doc::of(p, t).alerts() },
    // CM §6.3 and §4.7: a full reference link and its definition give the
    // same destination as the inline link.
    Rewrite { name: "reference links", applies: prose, apply: |p, t| Doc::of(p, t).reference_links() },
    // GFM §6.9: an extended autolink (`https://…` in text) is the autolink
    // `<https://…>` (CM §6.5).
    Rewrite { name: "autolinks", applies: prose, apply: |p, t| Doc::of(p, t).autolinks() },
    // CM §6.3: a destination `./x` or `../x` is relative to the document;
    // GitHub resolves `/x` from the repository's root: the same file.
    Rewrite { name: "rooted links", applies: prose, apply: |p, t| Doc::of(p, t).rooted_links(p) },
    // Unicode's U+201C/U+201D and U+2019 are the typographic forms of the
    // quotation marks U+0022 and the apostrophe U+0027 that editors' smart
    // quotes type; the words quoted are the same.
    Rewrite { name: "typographic quotes", applies: prose, apply: |p, t| Doc::of(p, t).each_md_line(text::typographic) },
    // CM §6.7: a soft line break renders as a space, so a paragraph
    // hard-wrapped at any width (or not at all) is the same paragraph.
    Rewrite { name: "wrap 40", applies: prose, apply: |p, t| Doc::of(p, t).wrap(40) },
    Rewrite { name: "wrap 60", applies: prose, apply: |p, t| Doc::of(p, t).wrap(60) },
    Rewrite { name: "wrap 80", applies: prose, apply: |p, t| Doc::of(p, t).wrap(80) },
    Rewrite { name: "unwrap", applies: prose, apply: |p, t| Doc::of(p, t).wrap(usize::MAX) },
    // CM §4.3: a setext heading (text underlined by `=` or `-`) is the ATX
    // heading of level 1 or 2.
    Rewrite { name: "setext headings", applies: prose, apply: |p, t| Doc::of(p, t).setext() },
    // A section is named by its heading's first words; what follows the
    // name (`## Landed work (see below)`) qualifies it.
    Rewrite { name: "heading suffix", applies: headed, apply: |p, t| Doc::of(p, t).heading_suffix() },
    // YAML 1.2.2 §6.6: a comment line is no content.
    Rewrite { name: "yaml comment line", applies: yaml, apply: |p, t| Doc::of(p, t).yaml_comment_line() },
    // YAML 1.2.2 §6.6: a comment after a value, past whitespace, is no
    // content.
    Rewrite {
        name: "yaml end-of-line comments",
        applies: yaml,
        apply: |p, t| Doc::of(p, t).each_yaml_value(|v| text::plain(v).then(|| format!("{v}  # noted"))),
    },
    // YAML 1.2.2 §7.3.1 and §7.3.2: a double- or single-quoted scalar is the
    // string a plain one is (for a string the core schema, §10.3.2, would
    // not resolve as null, bool, int or float).
    Rewrite {
        name: "yaml double quotes",
        applies: yaml,
        apply: |p, t| Doc::of(p, t).each_yaml_value(|v| text::stringy(v).then(|| format!("\"{v}\""))),
    },
    Rewrite {
        name: "yaml single quotes",
        applies: yaml,
        apply: |p, t| Doc::of(p, t).each_yaml_value(|v| text::stringy(v).then(|| format!("'{v}'"))),
    },
    // YAML 1.2.2 §7.4.1 and §8.2.1: a flow sequence `[a, b]` is the block
    // sequence of the same entries.
    Rewrite { name: "yaml flow sequences", applies: yaml, apply: |p, t| Doc::of(p, t).flow_sequences() },
    Rewrite { name: "yaml block sequences", applies: yaml, apply: |p, t| Doc::of(p, t).block_sequences() },
    // YAML 1.2.2 §3.2.1.1: a mapping's keys are unordered.
    Rewrite { name: "yaml key order", applies: markdown, apply: |p, t| Doc::of(p, t).reverse_front_matter() },
    // RFC 3339 §5.6 NOTE: `T` and `Z` may be lower case, and a space may
    // separate date and time.
    Rewrite {
        name: "timestamps t/z",
        applies: yaml,
        apply: |p, t| Doc::of(p, t).timestamps(|d, time, zone| format!("{d}t{time}{}", zone.to_ascii_lowercase())),
    },
    Rewrite {
        name: "timestamps spaced",
        applies: yaml,
        apply: |p, t| Doc::of(p, t).timestamps(|d, time, zone| format!("{d} {time}{zone}")),
    },
    // RFC 3339 §5.6: `Z` is the offset `+00:00`, and a fraction of a second
    // (`time-secfrac`) of zero is the same instant.
    Rewrite {
        name: "timestamps +00:00 .0",
        applies: yaml,
        apply: |p, t| {
            Doc::of(p, t).timestamps(|d, time, zone| {
                let zone = if zone.eq_ignore_ascii_case("z") { "+00:00" } else { zone };
                if time.contains('.') { format!("{d}T{time}{zone}") } else { format!("{d}T{time}.0{zone}") }
            })
        },
    },
    // ADR-140 reads `<persona>/<model_pin>` by its slash: a persona is any
    // script's letters, so renaming one everywhere it is written names the
    // same voter.
    Rewrite {
        name: "unicode persona",
        applies: voting,
        apply: |_, t| t.contains("lin/").then(|| (t.replace("lin/", "lïn/"), LineMap::same())),
    },
];

impl Doc {
    fn done(self, map: Option<Vec<u32>>) -> Option<(String, LineMap)> {
        Some((self.join(), map.map_or(LineMap::same(), LineMap::lines)))
    }

    fn done_spread(self, map: Vec<(u32, u32)>) -> Option<(String, LineMap)> {
        Some((self.join(), LineMap(Some(map))))
    }

    /// Each markdown line (outside front matter and fences) through `f`.
    fn each_md_line(mut self, f: impl Fn(&str) -> Option<String>) -> Option<(String, LineMap)> {
        for i in 0..self.lines.len() {
            if self.zones[i] == Zone::Md
                && let Some(new) = f(&self.lines[i])
            {
                self.lines[i] = new;
            }
        }
        self.done(None)
    }

    fn bullets(mut self, marker: char) -> Option<(String, LineMap)> {
        for i in 0..self.lines.len() {
            if self.zones[i] != Zone::Md {
                continue;
            }
            let line = &self.lines[i];
            let indent = line.len() - line.trim_start().len();
            let rest = &line[indent..];
            let Some(first) = rest.chars().next().filter(|c| matches!(c, '-' | '*' | '+')) else { continue };
            let thematic = rest.chars().all(|c| c == first || c == ' ');
            if rest[1..].starts_with(' ') && !thematic && !(first == '*' && rest[1..].trim_start().starts_with('*')) {
                self.lines[i] = format!("{}{marker}{}", &line[..indent], &rest[1..]);
            }
        }
        self.done(None)
    }

    fn ordered(mut self) -> Option<(String, LineMap)> {
        let item =
            |line: &str| line.starts_with(['-', '*', '+']) && line[1..].starts_with(' ') && line.trim().len() > 2;
        let mut items = Vec::new();
        for i in 0..self.lines.len() {
            if self.zones[i] != Zone::Md {
                continue;
            }
            let line = &self.lines[i];
            let t = line.trim_start();
            if t.starts_with(['-', '*', '+']) && t[1..].starts_with(' ') && line.len() != t.len() {
                return None;
            }
            if item(line) {
                let next = self.lines.get(i + 1).map_or("", String::as_str);
                if !next.trim().is_empty() && !item(next) {
                    return None;
                }
                items.push(i);
            }
        }
        if items.is_empty() {
            return None;
        }
        for i in items {
            self.lines[i] = format!("1.{}", &self.lines[i][1..]);
        }
        self.done(None)
    }

    fn labels(mut self, write: impl Fn(&str, &str) -> String) -> Option<(String, LineMap)> {
        for i in 0..self.lines.len() {
            if self.zones[i] != Zone::Md {
                continue;
            }
            let line = &self.lines[i];
            let indent = line.len() - line.trim_start().len();
            let (bullet, rest) = match line[indent..].strip_prefix("- ") {
                Some(rest) => ("- ", rest),
                None => ("", &line[indent..]),
            };
            let Some(inner) = rest.strip_prefix("**") else { continue };
            let Some(end) = inner.find(":**") else { continue };
            let name = &inner[..end];
            if name.is_empty() || name.contains(['*', '_', '`', '[']) || name.starts_with(' ') {
                continue;
            }
            let after = &inner[end + 3..];
            self.lines[i] = format!("{}{bullet}{}", &line[..indent], write(name, after));
        }
        self.done(None)
    }

    fn fences(mut self, open: impl Fn(&str, &str) -> String) -> Option<(String, LineMap)> {
        let mut i = 0;
        while i < self.lines.len() {
            if self.zones[i] != Zone::FenceOpen {
                i += 1;
                continue;
            }
            let line = self.lines[i].clone();
            let indent = line.len() - line.trim_start().len();
            let marker = line[indent..].chars().next().unwrap_or('`');
            let run: String = line[indent..].chars().take_while(|c| *c == marker).collect();
            let info = line[indent + run.len()..].trim();
            let close = (i + 1..self.lines.len()).find(|&j| self.zones[j] == Zone::FenceClose);
            let body_has_tildes = (i + 1..close.unwrap_or(self.lines.len())).any(|j| self.lines[j].contains("~~~"));
            if marker == '`' && !(body_has_tildes && open("```", "").starts_with('~')) {
                self.lines[i] = format!("{}{}", &line[..indent], open(&run, info));
                if let Some(close) = close {
                    let closing = &self.lines[close];
                    let ci = closing.len() - closing.trim_start().len();
                    let new = open(&run, "");
                    self.lines[close] = format!("{}{}", &closing[..ci], new.trim_end());
                }
            }
            i = close.unwrap_or(i) + 1;
        }
        self.done(None)
    }

    fn tables(mut self) -> Option<(String, LineMap)> {
        let mut i = 0;
        while i + 1 < self.lines.len() {
            let header = &self.lines[i];
            if self.zones[i] != Zone::Md || !header.contains('|') || !is_delimiter_row(&self.lines[i + 1]) {
                i += 1;
                continue;
            }
            let mut end = i + 2;
            while end < self.lines.len() && self.zones[end] == Zone::Md && self.lines[end].contains('|') {
                end += 1;
            }
            let piped = (i..end).all(|j| {
                let t = self.lines[j].trim();
                t.starts_with('|') && t.ends_with('|') && t.len() > 1
            });
            for j in i..end {
                let t = self.lines[j].trim().to_string();
                self.lines[j] = if piped {
                    t[1..t.len() - 1].trim().to_string()
                } else if j == i + 1 {
                    format!("|{t}|")
                } else {
                    format!("| {t} |")
                };
            }
            i = end;
        }
        self.done(None)
    }

    fn alerts(self) -> Option<(String, LineMap)> {
        let starts: Vec<usize> = (0..self.lines.len())
            .filter(|&i| {
                self.zones[i] == Zone::Md
                    && self.lines[i].trim_start().starts_with('>')
                    && !self.lines[i].contains("[!")
                    && (i == 0 || self.lines[i - 1].trim().is_empty())
            })
            .collect();
        self.insert_before(&starts, |_| "> [!NOTE]".to_string())
    }

    /// Inline links as full reference links, their definitions at the end.
    /// A finding on a link's destination moves with it to its definition:
    /// a line with a rewritten link maps to itself through the last line.
    fn reference_links(mut self) -> Option<(String, LineMap)> {
        let mut definitions = Vec::new();
        let mut rewritten = Vec::new();
        for i in 0..self.lines.len() {
            if self.zones[i] != Zone::Md {
                continue;
            }
            let mut line = self.lines[i].clone();
            let mut from = 0;
            while let Some(at) = line[from..].find("](").map(|a| from + a) {
                from = at + 2;
                let Some(close) = line[at..].find(')').map(|c| at + c) else { break };
                let Some(open) = line[..at].rfind('[') else { continue };
                let dest = line[at + 2..close].to_string();
                let whole = &line[open..=close];
                if dest.is_empty()
                    || dest.contains([' ', '(', '<'])
                    || whole.contains('`')
                    || line[..open].ends_with('!')
                {
                    continue;
                }
                let label = format!("ref-{}", definitions.len() + 1);
                definitions.push(format!("[{label}]: {dest}"));
                line.replace_range(at..=close, &format!("][{label}]"));
                rewritten.push(i);
            }
            self.lines[i] = line;
        }
        if definitions.is_empty() {
            return None;
        }
        let old = self.lines.len();
        self.append(&definitions);
        let last = self.lines.len() as u32;
        let map = (0..old).map(|i| (i as u32 + 1, if rewritten.contains(&i) { last } else { i as u32 + 1 })).collect();
        self.done_spread(map)
    }

    fn autolinks(self) -> Option<(String, LineMap)> {
        self.each_md_line(|line| {
            if line.contains(['`', '<', '[']) {
                return None;
            }
            let mut out = Vec::new();
            let mut changed = false;
            for word in line.split(' ') {
                if word.starts_with("https://") {
                    let url = word.trim_end_matches(['.', ',', ':', ';', '!', '?', ')']);
                    out.push(format!("<{url}>{}", &word[url.len()..]));
                    changed = true;
                } else {
                    out.push(word.to_string());
                }
            }
            changed.then(|| out.join(" "))
        })
    }

    fn rooted_links(self, path: &str) -> Option<(String, LineMap)> {
        let folder = path.rsplit_once('/').map_or("", |(f, _)| f).to_string();
        self.each_md_line(|line| {
            let mut line = line.to_string();
            let mut from = 0;
            let mut changed = false;
            while let Some(at) = line[from..].find("](").map(|a| from + a + 2) {
                let dest: String = line[at..].chars().take_while(|c| !matches!(c, ')' | ' ' | '#')).collect();
                from = at;
                if (dest.starts_with("./") || dest.starts_with("../"))
                    && let Some(resolved) = resolve(&folder, &dest)
                {
                    line.replace_range(at..at + dest.len(), &format!("/{resolved}"));
                    changed = true;
                }
            }
            changed.then_some(line)
        })
    }

    fn wrap(mut self, width: usize) -> Option<(String, LineMap)> {
        let mut out: Vec<String> = Vec::new();
        let mut zones = Vec::new();
        let mut map = vec![(0u32, 0u32); self.lines.len()];
        let mut i = 0;
        while i < self.lines.len() {
            let end = self.paragraph_end(i);
            if end == i {
                let at = out.len() as u32 + 1;
                map[i] = (at, at);
                out.push(self.lines[i].clone());
                zones.push(self.zones[i]);
                i += 1;
                continue;
            }
            let (lines, spans) = text::wrap(&self.lines[i..end], width);
            let first = out.len() as u32 + 1;
            for (k, (start, last)) in spans.into_iter().enumerate() {
                map[i + k] = (first + start, first + last);
            }
            zones.extend(std::iter::repeat_n(Zone::Md, lines.len()));
            out.extend(lines);
            i = end;
        }
        self.replace_lines(out, zones);
        self.done_spread(map)
    }

    /// The end of the plain paragraph starting at line `i` (`i` when none
    /// does): lines of text only, none opening a block of its own, none a
    /// label line or ending in a hard break, not underlined as a heading.
    fn paragraph_end(&self, i: usize) -> usize {
        let plain = |j: usize| {
            let line = &self.lines[j];
            let t = line.trim_start();
            self.zones[j] == Zone::Md
                && !t.is_empty()
                && line.len() - t.len() < 4
                && !t.starts_with(['#', '>', '-', '*', '+', '|', '<', '=', '[', '_', '!'])
                && !t.starts_with(|c: char| c.is_ascii_digit())
                && !t.contains('|')
                && !line.ends_with("  ")
                && !line.ends_with('\\')
                && gatehouse::docs::label::any_label(t).is_none_or(|(name, _)| name.contains(' '))
        };
        if i > 0 && self.zones[i - 1] == Zone::Md && !self.lines[i - 1].trim().is_empty() {
            return i;
        }
        let mut end = i;
        while end < self.lines.len() && plain(end) {
            end += 1;
        }
        let underlined = self.lines.get(end).is_some_and(|l| {
            let t = l.trim();
            !t.is_empty() && (t.chars().all(|c| c == '=') || t.chars().all(|c| c == '-'))
        });
        let continued = self.lines.get(end).is_some_and(|l| !l.trim().is_empty());
        if underlined || continued || end - i < 1 { i } else { end }
    }

    fn setext(mut self) -> Option<(String, LineMap)> {
        let mut at = Vec::new();
        let mut underlines = Vec::new();
        for i in 0..self.lines.len() {
            let t = self.lines[i].trim_end().to_string();
            let level = t.chars().take_while(|c| *c == '#').count();
            let title = t[level..].trim();
            let after_blank = i == 0 || self.zones[i - 1] != Zone::Md || self.lines[i - 1].trim().is_empty();
            if self.zones[i] == Zone::Md
                && (level == 1 || level == 2)
                && t[level..].starts_with(' ')
                && !t.ends_with('#')
                && !title.is_empty()
                && after_blank
                && !title.starts_with(['-', '+', '*', '>', '=', '|', '<', '['])
            {
                self.lines[i] = title.to_string();
                at.push(i);
                underlines.push(if level == 1 { "===" } else { "---" });
            }
        }
        self.insert_after(&at, |k| underlines[k].to_string())
    }

    fn heading_suffix(mut self) -> Option<(String, LineMap)> {
        for i in 0..self.lines.len() {
            let t = self.lines[i].trim_end();
            if self.zones[i] == Zone::Md && t.starts_with("##") && !t.ends_with('#') {
                self.lines[i] = format!("{t} (see below)");
            }
        }
        self.done(None)
    }
}
