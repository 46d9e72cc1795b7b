//! The files of one revision: repo-relative path → content, in path order.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::collections::btree_map::Range;
use std::iter::Peekable;
use std::ops::Bound;
use std::sync::Arc;

use super::FileContent;

/// Repo-relative path → content, ordered, so every report is deterministic.
///
/// A map may lie over a shared one. The App keeps a commit's documents in
/// one shared map, and a pull request's head is that map while its base is
/// the same map with the few paths the pull request touches laid over it:
/// neither side copies 50,000 briefs, and "what did the change touch" (see
/// [`Files::touched_with`]) walks the overlays alone. A source that reads
/// files one by one builds an unshared map with [`Files::new`] and
/// [`Files::insert`]; both kinds read alike.
#[derive(Clone, Default)]
pub struct Files {
    shared: Arc<BTreeMap<String, FileContent>>,
    /// Entries over `shared`; `None` hides a shared path.
    own: BTreeMap<String, Option<FileContent>>,
}

impl Files {
    pub fn new() -> Files {
        Files::default()
    }

    /// The files of `shared`, with nothing laid over them yet.
    pub fn over(shared: Arc<BTreeMap<String, FileContent>>) -> Files {
        Files { shared, own: BTreeMap::new() }
    }

    pub fn get(&self, path: &str) -> Option<&FileContent> {
        self.get_key_value(path).map(|(_, content)| content)
    }

    pub fn get_key_value(&self, path: &str) -> Option<(&String, &FileContent)> {
        match self.own.get_key_value(path) {
            Some((path, content)) => content.as_ref().map(|content| (path, content)),
            None => self.shared.get_key_value(path),
        }
    }

    pub fn contains_key(&self, path: &str) -> bool {
        self.get(path).is_some()
    }

    pub fn insert(&mut self, path: String, content: FileContent) {
        self.own.insert(path, Some(content));
    }

    pub fn remove(&mut self, path: &str) {
        if self.shared.contains_key(path) {
            self.own.insert(path.to_string(), None);
        } else {
            self.own.remove(path);
        }
    }

    pub fn clear(&mut self) {
        *self = Files::new();
    }

    /// Every entry, in path order.
    pub fn iter(&self) -> Entries<'_> {
        self.from(Bound::Unbounded)
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.iter().map(|(path, _)| path)
    }

    /// The entries whose path starts with `prefix`, in path order.
    pub fn with_prefix<'f, 'p>(
        &'f self,
        prefix: &'p str,
    ) -> impl Iterator<Item = (&'f String, &'f FileContent)> + use<'f, 'p> {
        self.from(Bound::Included(prefix)).take_while(move |(path, _)| path.starts_with(prefix))
    }

    pub fn len(&self) -> usize {
        self.iter().count()
    }

    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// When `self` and `other` lie over one shared map, the paths either
    /// lays over it, in path order (with repeats): the only paths whose
    /// content can differ between the two. `None` when they share nothing.
    pub fn touched_with<'f>(&'f self, other: &'f Files) -> Option<impl Iterator<Item = &'f str>> {
        if self.shared.is_empty() || !Arc::ptr_eq(&self.shared, &other.shared) {
            return None;
        }
        let mut theirs = other.own.keys().peekable();
        let mut ours = self.own.keys().peekable();
        Some(std::iter::from_fn(move || match (ours.peek(), theirs.peek()) {
            (Some(a), Some(b)) if a <= b => ours.next().map(String::as_str),
            (_, Some(_)) => theirs.next().map(String::as_str),
            (Some(_), None) => ours.next().map(String::as_str),
            (None, None) => None,
        }))
    }

    fn from<'f>(&'f self, start: Bound<&str>) -> Entries<'f> {
        let range = (start, Bound::Unbounded);
        Entries {
            shared: self.shared.range::<str, _>(range).peekable(),
            own: self.own.range::<str, _>(range).peekable(),
        }
    }
}

impl FromIterator<(String, FileContent)> for Files {
    fn from_iter<I: IntoIterator<Item = (String, FileContent)>>(entries: I) -> Files {
        Files {
            shared: Arc::default(),
            own: entries.into_iter().map(|(path, content)| (path, Some(content))).collect(),
        }
    }
}

impl Extend<(String, FileContent)> for Files {
    fn extend<I: IntoIterator<Item = (String, FileContent)>>(&mut self, entries: I) {
        for (path, content) in entries {
            self.insert(path, content);
        }
    }
}

impl<'f> IntoIterator for &'f Files {
    type Item = (&'f String, &'f FileContent);
    type IntoIter = Entries<'f>;

    fn into_iter(self) -> Entries<'f> {
        self.iter()
    }
}

impl IntoIterator for Files {
    type Item = (String, FileContent);
    type IntoIter = std::vec::IntoIter<(String, FileContent)>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter().map(|(path, content)| (path.clone(), content.clone())).collect::<Vec<_>>().into_iter()
    }
}

impl<Q: AsRef<str> + ?Sized> std::ops::Index<&Q> for Files {
    type Output = FileContent;

    /// The content at `path`; panics when there is none, as a map's index does.
    fn index(&self, path: &Q) -> &FileContent {
        let path = path.as_ref();
        self.get(path).unwrap_or_else(|| panic!("no file at `{path}`"))
    }
}

impl PartialEq for Files {
    fn eq(&self, other: &Files) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Files {}

impl std::fmt::Debug for Files {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The entries of a [`Files`], in path order: its own entries merged into
/// the shared ones, hidden paths left out.
pub struct Entries<'f> {
    shared: Peekable<Range<'f, String, FileContent>>,
    own: Peekable<Range<'f, String, Option<FileContent>>>,
}

impl<'f> Iterator for Entries<'f> {
    type Item = (&'f String, &'f FileContent);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let Some(&(own_path, _)) = self.own.peek() else {
                return self.shared.next();
            };
            let order = self.shared.peek().map_or(Ordering::Greater, |(path, _)| path.as_str().cmp(own_path));
            if order == Ordering::Less {
                return self.shared.next();
            }
            if order == Ordering::Equal {
                self.shared.next();
            }
            let (path, content) = self.own.next()?;
            if let Some(content) = content {
                return Some((path, content));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> FileContent {
        FileContent::Text(Arc::from(t))
    }

    fn shared(entries: &[(&str, &str)]) -> Arc<BTreeMap<String, FileContent>> {
        Arc::new(entries.iter().map(|(p, t)| (p.to_string(), text(t))).collect())
    }

    fn listed(files: &Files) -> Vec<(&str, &str)> {
        files.iter().map(|(p, c)| (p.as_str(), c.text().unwrap_or("?"))).collect()
    }

    /// An overlay reads as one map: its entries replace, add to and hide
    /// the shared ones, in every way of reading.
    #[test]
    fn an_overlay_reads_as_one_map() {
        let mut files = Files::over(shared(&[("a", "1"), ("b/1", "2"), ("b/2", "3"), ("c", "4")]));
        files.insert("b/2".into(), text("3'"));
        files.insert("b/0".into(), text("0"));
        files.insert("d".into(), text("5"));
        files.remove("a");
        files.remove("c");
        files.insert("c".into(), text("4'"));
        files.remove("zz");
        let expected = [("b/0", "0"), ("b/1", "2"), ("b/2", "3'"), ("c", "4'"), ("d", "5")];
        assert_eq!(listed(&files), expected);
        assert_eq!(files.len(), 5);
        assert_eq!(files.get("a"), None);
        assert!(!files.contains_key("a") && files.contains_key("b/1"));
        assert_eq!(files.get("b/2"), Some(&text("3'")));
        let under_b: Vec<&str> = files.with_prefix("b/").map(|(p, _)| p.as_str()).collect();
        assert_eq!(under_b, ["b/0", "b/1", "b/2"]);
        let flat: Files = expected.iter().map(|(p, t)| (p.to_string(), text(t))).collect();
        assert_eq!(files, flat);
        assert_eq!(format!("{files:?}"), format!("{flat:?}"));
    }

    #[test]
    fn only_maps_over_one_shared_map_know_what_they_touch() {
        let common = shared(&[("a", "1"), ("b", "2"), ("c", "3")]);
        let head = Files::over(common.clone());
        let mut base = Files::over(common.clone());
        base.insert("b".into(), text("2'"));
        base.remove("c");
        let touched: Vec<&str> = base.touched_with(&head).expect("one shared map").collect();
        assert_eq!(touched, ["b", "c"]);
        assert!(Files::over(shared(&[("a", "1")])).touched_with(&head).is_none());
        assert!(Files::new().touched_with(&Files::new()).is_none());
    }
}
