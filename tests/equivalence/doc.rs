//! A document as lines, each with the zone it is in (front matter, fence,
//! markdown, YAML) and the original lines whose text it holds, so that a
//! perturbation can move text between lines and a finding's line still be
//! followed to where its text went.

/// What a line is part of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zone {
    /// The `---` lines around front matter.
    FrontFence,
    /// A front matter line (YAML).
    Front,
    /// A fence's opening and closing lines.
    FenceMark,
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

#[derive(Clone, Debug)]
pub struct Line {
    pub text: String,
    pub zone: Zone,
    /// The original lines (1-based) whose text is on this line; none for a
    /// line a perturbation added.
    pub from: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct Doc {
    pub lines: Vec<Line>,
    /// The line ending the text uses.
    pub nl: String,
    /// Whether the text ends with a line ending.
    pub trailing: bool,
}

impl Doc {
    /// Reads `text`, at `path`: a `.yml`/`.yaml` file is YAML throughout.
    pub fn of(path: &str, text: &str) -> Doc {
        let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let texts: Vec<&str> = text.lines().collect();
        let zones = if path.ends_with(".yml") || path.ends_with(".yaml") {
            vec![Zone::Yaml; texts.len()]
        } else {
            zones(&texts)
        };
        let lines = texts
            .iter()
            .zip(zones)
            .enumerate()
            .map(|(i, (text, zone))| Line { text: text.to_string(), zone, from: vec![i as u32 + 1] })
            .collect();
        Doc { lines, nl: nl.to_string(), trailing: text.ends_with('\n') }
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        for line in &self.lines {
            out.push_str(&line.text);
            out.push_str(&self.nl);
        }
        if !self.trailing {
            out.truncate(out.len() - self.nl.len().min(out.len()));
        }
        out
    }

    /// The Markdown the HTML oracle renders: front matter and the bodies of
    /// YAML fences, which the YAML oracle judges, left out.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        for line in self.lines.iter().filter(|l| !matches!(l.zone, Zone::FrontFence | Zone::Front | Zone::YamlFence)) {
            out.push_str(&line.text);
            out.push('\n');
        }
        out
    }

    /// Each YAML text: the front matter, each YAML fence's body, or the
    /// whole of a YAML file.
    pub fn yaml_texts(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut previous: Option<Zone> = None;
        for line in &self.lines {
            if line.zone.is_yaml() {
                if previous != Some(line.zone) {
                    out.push(String::new());
                }
                let text = out.last_mut().expect("pushed above");
                text.push_str(&line.text);
                text.push('\n');
            }
            previous = Some(line.zone);
        }
        out
    }

    /// Indices of the lines `keep` accepts.
    pub fn indices(&self, keep: impl Fn(&Line) -> bool) -> Vec<usize> {
        (0..self.lines.len()).filter(|&i| keep(&self.lines[i])).collect()
    }

    /// Inserts a line before line `at`, in `zone`.
    pub fn insert(&mut self, at: usize, text: String, zone: Zone) {
        self.lines.insert(at, Line { text, zone, from: Vec::new() });
    }

    /// Where each original line is now: the first and last new lines (1-based)
    /// holding its text.
    pub fn line_map(&self, original_lines: usize) -> LineMap {
        let mut map: Vec<Option<(u32, u32)>> = vec![None; original_lines];
        for (i, line) in self.lines.iter().enumerate() {
            let new = i as u32 + 1;
            for &old in &line.from {
                let slot = &mut map[old as usize - 1];
                *slot = Some(slot.map_or((new, new), |(lo, hi)| (lo.min(new), hi.max(new))));
            }
        }
        LineMap(map)
    }
}

/// Where each line of the original text is in the variant.
pub struct LineMap(Vec<Option<(u32, u32)>>);

impl LineMap {
    /// The new lines of original line `line` (1-based); a line past the
    /// text (a finding at its end) moves as the last line did.
    pub fn get(&self, line: u32) -> (u32, u32) {
        match self.0.get(line.saturating_sub(1) as usize) {
            Some(Some(new)) => *new,
            Some(None) => (1, u32::MAX),
            None => match self.0.iter().rev().flatten().next() {
                Some(&(_, last)) => {
                    let moved = last + line - self.0.len() as u32;
                    (moved, moved)
                }
                None => (line, line),
            },
        }
    }
}

fn zones(lines: &[&str]) -> Vec<Zone> {
    let mut out = vec![Zone::Md; lines.len()];
    let mut i = 0;
    if lines.first().is_some_and(|l| l.trim_end() == "---")
        && let Some(close) = (1..lines.len()).find(|&j| matches!(lines[j].trim_end(), "---" | "..."))
    {
        out[0] = Zone::FrontFence;
        for zone in &mut out[1..close] {
            *zone = Zone::Front;
        }
        out[close] = Zone::FrontFence;
        i = close + 1;
    }
    while i < lines.len() {
        let line = lines[i];
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
        out[i] = Zone::FenceMark;
        let mut j = i + 1;
        while j < lines.len() {
            let c = lines[j].trim();
            if c.len() >= run && c.chars().all(|ch| ch == marker) {
                out[j] = Zone::FenceMark;
                break;
            }
            out[j] = body;
            j += 1;
        }
        i = j + 1;
    }
    out
}
