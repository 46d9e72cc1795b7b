//! The YAML rewrites: comments, quoting, flow and block sequences, key
//! order and timestamp spellings, in front matter, `voting` blocks and YAML
//! files.

use super::LineMap;
use super::text::{self, Doc, Zone};

impl Doc {
    pub(super) fn yaml_comment_line(self) -> Option<(String, LineMap)> {
        let at: Vec<usize> = (0..self.lines.len())
            .filter(|&i| {
                (self.zones[i] == Zone::FrontOpen)
                    || (self.zones[i] == Zone::FenceOpen
                        && self.lines[i].trim_start().trim_start_matches(['`', '~']).trim() == "voting")
            })
            .collect();
        if self.zones.first() == Some(&Zone::Yaml) {
            return self.insert_before(&[0], |_| "# the repository's gatehouse settings".to_string());
        }
        self.insert_after(&at, |_| "# written by hand".to_string())
    }

    pub(super) fn each_yaml_value(mut self, f: impl Fn(&str) -> Option<String>) -> Option<(String, LineMap)> {
        let mut block_indent: Option<usize> = None;
        for i in 0..self.lines.len() {
            if !self.zones[i].is_yaml() {
                block_indent = None;
                continue;
            }
            let line = self.lines[i].clone();
            let indent = line.len() - line.trim_start().len();
            if let Some(b) = block_indent {
                if line.trim().is_empty() || indent > b {
                    continue;
                }
                block_indent = None;
            }
            let Some((head, value)) = text::yaml_value(&line) else { continue };
            if value.starts_with(['|', '>']) {
                block_indent = Some(indent);
                continue;
            }
            if let Some(new) = f(value) {
                self.lines[i] = format!("{head}{new}");
            }
        }
        self.done(None)
    }

    pub(super) fn flow_sequences(mut self) -> Option<(String, LineMap)> {
        let mut map: Vec<u32> = Vec::new();
        let mut out: Vec<String> = Vec::new();
        let mut zones = Vec::new();
        let mut i = 0;
        while i < self.lines.len() {
            let line = self.lines[i].clone();
            let key =
                self.zones[i].is_yaml() && line.trim_end().ends_with(':') && !line.trim_start().starts_with(['-', '#']);
            let indent = line.len() - line.trim_start().len();
            let mut items = Vec::new();
            let mut j = i + 1;
            let mut all = true;
            while key && j < self.lines.len() && self.zones[j].is_yaml() {
                let l = &self.lines[j];
                let li = l.len() - l.trim_start().len();
                match l.trim_start().strip_prefix("- ") {
                    Some(item) if li >= indent && text::flowable(item) => items.push(item.trim().to_string()),
                    Some(_) => all = false,
                    None if li > indent && !l.trim().is_empty() => all = false,
                    None => {}
                }
                if !all || l.trim_start().strip_prefix("- ").is_none() {
                    break;
                }
                j += 1;
            }
            if items.is_empty() || !all {
                map.push(out.len() as u32 + 1);
                out.push(line);
                zones.push(self.zones[i]);
                i += 1;
                continue;
            }
            let at = out.len() as u32 + 1;
            map.extend(std::iter::repeat_n(at, j - i));
            out.push(format!("{} [{}]", line.trim_end(), items.join(", ")));
            zones.push(self.zones[i]);
            i = j;
        }
        self.replace_lines(out, zones);
        self.done(Some(map))
    }

    pub(super) fn block_sequences(mut self) -> Option<(String, LineMap)> {
        let mut map: Vec<(u32, u32)> = Vec::new();
        let mut out: Vec<String> = Vec::new();
        let mut zones = Vec::new();
        for i in 0..self.lines.len() {
            let line = self.lines[i].clone();
            let at = out.len() as u32 + 1;
            let items = self.zones[i].is_yaml().then(|| text::flow_items(&line)).flatten();
            map.push((at, at + items.as_ref().map_or(0, |(_, items)| items.len() as u32)));
            match items {
                Some((head, items)) => {
                    let indent = line.len() - line.trim_start().len();
                    out.push(head.trim_end().to_string());
                    zones.push(self.zones[i]);
                    for item in items {
                        out.push(format!("{}  - {item}", " ".repeat(indent)));
                        zones.push(self.zones[i]);
                    }
                }
                None => {
                    out.push(line);
                    zones.push(self.zones[i]);
                }
            }
        }
        self.replace_lines(out, zones);
        self.done_spread(map)
    }

    pub(super) fn reverse_front_matter(mut self) -> Option<(String, LineMap)> {
        let start = self.zones.iter().position(|z| *z == Zone::FrontOpen)?;
        let end = (start + 1..self.zones.len()).find(|&i| self.zones[i] == Zone::FrontClose)?;
        // Top-level entries: a key at column 0 and the lines under it.
        let mut entries: Vec<(usize, usize)> = Vec::new();
        for i in start + 1..end {
            let l = &self.lines[i];
            let top = !l.starts_with([' ', '\t', '#', '-']) && !l.trim().is_empty();
            match entries.last_mut() {
                Some((_, e)) if !top => *e = i + 1,
                _ if top => entries.push((i, i + 1)),
                _ => return None,
            }
        }
        if entries.len() < 2 || entries.first().is_none_or(|(s, _)| *s != start + 1) {
            return None;
        }
        let mut map: Vec<u32> = (1..=self.lines.len() as u32).collect();
        let mut new_lines = Vec::new();
        let mut line = start as u32 + 2;
        for &(s, e) in entries.iter().rev() {
            for (k, new) in map.iter_mut().enumerate().take(e).skip(s) {
                *new = line;
                line += 1;
                new_lines.push(self.lines[k].clone());
            }
        }
        self.lines.splice(start + 1..end, new_lines);
        self.done(Some(map))
    }

    pub(super) fn timestamps(self, write: impl Fn(&str, &str, &str) -> String) -> Option<(String, LineMap)> {
        self.each_yaml_value(|v| {
            let (date, time, zone) = text::timestamp(v)?;
            Some(write(date, time, zone))
        })
    }
}
