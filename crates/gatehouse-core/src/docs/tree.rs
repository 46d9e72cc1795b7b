//! The YAML tree every document reads (frontmatter, `voting` blocks, the
//! config): every node of a text in one vector, children as index ranges,
//! and scalar values borrowed from the text wherever they appear in it
//! verbatim. Building and dropping it costs a few allocations per text
//! rather than one per node, and reading it follows indices that sit close
//! together in memory.
//!
//! [`super::yaml::parse`] builds one from yaml-rust2's events;
//! [`super::yaml_block`] builds the same tree straight from the plain block
//! YAML of vote ledgers, faster.

use std::fmt;

use super::yaml;

/// A parsed YAML text, borrowing the text it was read from.
#[derive(Clone)]
pub struct Tree<'s> {
    text: &'s str,
    /// Values that are not verbatim in `text` (unescaped or folded); a
    /// [`Str`] addresses them past `text.len()`.
    owned: String,
    nodes: Vec<NodeData>,
    /// The items of every sequence, each sequence's contiguous.
    items: Vec<u32>,
    /// The entries of every mapping, each mapping's contiguous.
    entries: Vec<EntryData>,
    root: u32,
}

/// A string of the tree: a byte range of `text`, or of `owned` shifted by
/// `text.len()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Str {
    start: u32,
    len: u32,
}

impl Str {
    /// `value`, a slice of `text`, as a string of a tree read from `text`.
    #[inline]
    pub(super) fn within(text: &str, value: &str) -> Str {
        let start = value.as_ptr() as usize - text.as_ptr() as usize;
        debug_assert!(start + value.len() <= text.len());
        Str { start: start as u32, len: value.len() as u32 }
    }
}

#[derive(Clone, Copy, Debug)]
struct NodeData {
    line: u32,
    col: u32,
    kind: Kind,
    /// A scalar's [`Str`], a sequence's range of `items`, a mapping's range
    /// of `entries`.
    start: u32,
    len: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Plain,
    Quoted,
    Seq,
    Map,
}

#[derive(Clone, Copy, Debug)]
struct EntryData {
    name: Str,
    line: u32,
    col: u32,
    value: u32,
}

/// A mapping key: its name and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key<'t> {
    pub name: &'t str,
    pub line: u32,
    pub col: u32,
}

/// Names a node of a [`Tree`] without borrowing it (see [`Node::id`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeId(u32);

/// One node of a [`Tree`].
#[derive(Clone, Copy)]
pub struct Node<'t> {
    tree: &'t Tree<'t>,
    id: u32,
}

/// A sequence's items.
#[derive(Clone, Copy)]
pub struct Seq<'t> {
    tree: &'t Tree<'t>,
    items: &'t [u32],
}

/// A mapping's entries, in the order written.
#[derive(Clone, Copy)]
pub struct Map<'t> {
    tree: &'t Tree<'t>,
    entries: &'t [EntryData],
}

impl<'s> Tree<'s> {
    pub fn root(&self) -> Node<'_> {
        Node { tree: self, id: self.root }
    }

    /// The same tree holding its text itself, for a text that does not
    /// outlive it: the text becomes the start of `owned`, so every [`Str`]
    /// keeps its address.
    pub fn into_owned(self) -> Tree<'static> {
        let mut owned = String::with_capacity(self.text.len() + self.owned.len());
        owned.push_str(self.text);
        owned.push_str(&self.owned);
        Tree { text: "", owned, nodes: self.nodes, items: self.items, entries: self.entries, root: self.root }
    }

    /// A scalar's text as a slice of the text the tree was read from, when
    /// it is written there verbatim (so it outlives the tree).
    pub fn verbatim(&self, id: NodeId) -> Option<&'s str> {
        let data = self.nodes.get(id.0 as usize)?;
        let (start, len) = (data.start as usize, data.len as usize);
        let scalar = matches!(data.kind, Kind::Plain | Kind::Quoted);
        (scalar && start + len <= self.text.len()).then(|| &self.text[start..start + len])
    }

    #[inline]
    fn str(&self, s: Str) -> &str {
        let (start, len) = (s.start as usize, s.len as usize);
        match start.checked_sub(self.text.len()) {
            Some(at) => &self.owned[at..at + len],
            None => &self.text[start..start + len],
        }
    }
}

impl fmt::Debug for Tree<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.root().fmt(f)
    }
}

/// Builds a [`Tree`] bottom-up: children first, then the node that holds
/// them (what a recursive reader produces).
pub(super) struct TreeBuilder<'s> {
    tree: Tree<'s>,
}

impl<'s> TreeBuilder<'s> {
    pub(super) fn new(text: &'s str) -> TreeBuilder<'s> {
        let tree =
            Tree { text, owned: String::new(), nodes: Vec::new(), items: Vec::new(), entries: Vec::new(), root: 0 };
        TreeBuilder { tree }
    }

    /// Room for `entries` mapping entries and `items` sequence items, and
    /// for a node for each of them and the root.
    pub(super) fn reserve(&mut self, entries: usize, items: usize) {
        self.tree.nodes.reserve(1 + entries + items);
        self.tree.entries.reserve(entries);
        self.tree.items.reserve(items);
    }

    /// How many nodes are built so far.
    pub(super) fn len(&self) -> usize {
        self.tree.nodes.len()
    }

    /// A string that is a slice of the text.
    #[inline]
    pub(super) fn borrowed(&self, value: &'s str) -> Str {
        Str::within(self.tree.text, value)
    }

    /// The text the tree is read from.
    pub(super) fn text(&self) -> &'s str {
        self.tree.text
    }

    /// A string of the tree being built.
    pub(super) fn str(&self, s: Str) -> &str {
        self.tree.str(s)
    }

    /// A string kept in the tree.
    pub(super) fn owned(&mut self, value: &str) -> Str {
        let start = self.tree.text.len() + self.tree.owned.len();
        self.tree.owned.push_str(value);
        Str { start: start as u32, len: value.len() as u32 }
    }

    #[inline]
    pub(super) fn scalar(&mut self, value: Str, plain: bool, line: u32, col: u32) -> u32 {
        let kind = if plain { Kind::Plain } else { Kind::Quoted };
        self.push(NodeData { line, col, kind, start: value.start, len: value.len })
    }

    /// A sequence of the given nodes.
    pub(super) fn seq(&mut self, items: impl IntoIterator<Item = u32>, line: u32, col: u32) -> u32 {
        let start = self.tree.items.len();
        self.tree.items.extend(items);
        let len = self.tree.items.len() - start;
        self.push(NodeData { line, col, kind: Kind::Seq, start: start as u32, len: len as u32 })
    }

    /// A mapping of the given (name, line, col, value) entries.
    pub(super) fn map(&mut self, entries: impl IntoIterator<Item = (Str, u32, u32, u32)>, line: u32, col: u32) -> u32 {
        let start = self.tree.entries.len();
        self.tree.entries.extend(entries.into_iter().map(|(name, line, col, value)| EntryData {
            name,
            line,
            col,
            value,
        }));
        let len = self.tree.entries.len() - start;
        self.push(NodeData { line, col, kind: Kind::Map, start: start as u32, len: len as u32 })
    }

    /// A node built so far.
    pub(super) fn node(&self, id: u32) -> Node<'_> {
        Node { tree: &self.tree, id }
    }

    /// A scalar's string.
    pub(super) fn scalar_str(&self, id: u32) -> Str {
        let data = &self.tree.nodes[id as usize];
        Str { start: data.start, len: data.len }
    }

    /// How many values a node holds, itself included.
    pub(super) fn size(&self, id: u32) -> usize {
        let data = self.tree.nodes[id as usize];
        let (start, len) = (data.start as usize, data.len as usize);
        1 + match data.kind {
            Kind::Plain | Kind::Quoted => 0,
            Kind::Seq => self.tree.items[start..start + len].iter().map(|&item| self.size(item)).sum(),
            Kind::Map => self.tree.entries[start..start + len].iter().map(|e| self.size(e.value)).sum(),
        }
    }

    /// A copy of a node and all it holds, every copied node and key placed
    /// at `line` and `col` (where an alias stands for it).
    pub(super) fn copy(&mut self, id: u32, line: u32, col: u32) -> u32 {
        let data = self.tree.nodes[id as usize];
        let (start, len) = (data.start as usize, data.len as usize);
        match data.kind {
            Kind::Plain | Kind::Quoted => self.push(NodeData { line, col, ..data }),
            Kind::Seq => {
                let items: Vec<u32> = self.tree.items[start..start + len].to_vec();
                let copies: Vec<u32> = items.into_iter().map(|item| self.copy(item, line, col)).collect();
                self.seq(copies, line, col)
            }
            Kind::Map => {
                let entries: Vec<EntryData> = self.tree.entries[start..start + len].to_vec();
                let copies: Vec<(Str, u32, u32, u32)> =
                    entries.into_iter().map(|e| (e.name, line, col, self.copy(e.value, line, col))).collect();
                self.map(copies, line, col)
            }
        }
    }

    /// A mapping's entries as (name, line, col, value).
    pub(super) fn map_entries(&self, id: u32) -> Vec<(Str, u32, u32, u32)> {
        let data = self.tree.nodes[id as usize];
        let (start, len) = (data.start as usize, data.len as usize);
        self.tree.entries[start..start + len].iter().map(|e| (e.name, e.line, e.col, e.value)).collect()
    }

    /// Places a node at another line and column.
    pub(super) fn move_node(&mut self, id: u32, line: u32, col: u32) {
        let data = &mut self.tree.nodes[id as usize];
        (data.line, data.col) = (line, col);
    }

    pub(super) fn finish(mut self, root: u32) -> Tree<'s> {
        self.tree.root = root;
        self.tree
    }

    #[inline]
    fn push(&mut self, node: NodeData) -> u32 {
        self.tree.nodes.push(node);
        self.tree.nodes.len() as u32 - 1
    }
}

impl<'t> Node<'t> {
    #[inline]
    fn data(self) -> &'t NodeData {
        &self.tree.nodes[self.id as usize]
    }

    /// The node's index in its tree, for the builder.
    pub(super) fn index(self) -> u32 {
        self.id
    }

    pub fn id(self) -> NodeId {
        NodeId(self.id)
    }

    /// Another node of the same tree.
    pub fn sibling(self, id: NodeId) -> Node<'t> {
        Node { tree: self.tree, id: id.0 }
    }

    /// 1-based line in the file the YAML came from.
    pub fn line(self) -> u32 {
        self.data().line
    }

    /// 1-based column.
    pub fn col(self) -> u32 {
        self.data().col
    }

    /// A scalar's text and whether it is plain (unquoted).
    #[inline]
    fn scalar(self) -> Option<(&'t str, bool)> {
        let data = self.data();
        let plain = match data.kind {
            Kind::Plain => true,
            Kind::Quoted => false,
            Kind::Seq | Kind::Map => return None,
        };
        Some((self.tree.str(Str { start: data.start, len: data.len }), plain))
    }

    /// Whether the node is a plain (unquoted) scalar.
    pub fn is_plain(self) -> bool {
        self.data().kind == Kind::Plain
    }

    /// The raw text of any scalar, whatever YAML would type it as.
    pub fn scalar_text(self) -> Option<&'t str> {
        self.scalar().map(|(value, _)| value)
    }

    /// The text of a string scalar (quoted, or plain and not a number, bool or null).
    #[inline]
    pub fn as_str(self) -> Option<&'t str> {
        let (value, plain) = self.scalar()?;
        (!plain || yaml::plain_is_string(value)).then_some(value)
    }

    pub fn is_null(self) -> bool {
        self.plain().is_some_and(yaml::plain_is_null)
    }

    pub fn as_i64(self) -> Option<i64> {
        yaml::plain_i64(self.plain()?)
    }

    pub fn as_f64(self) -> Option<f64> {
        yaml::plain_f64(self.plain()?)
    }

    pub fn as_bool(self) -> Option<bool> {
        yaml::plain_bool(self.plain()?)
    }

    /// A plain scalar's text.
    #[inline]
    fn plain(self) -> Option<&'t str> {
        self.scalar().filter(|(_, plain)| *plain).map(|(value, _)| value)
    }

    pub fn type_name(self) -> &'static str {
        match self.scalar() {
            Some((value, plain)) => yaml::scalar_type_name(value, plain),
            None if self.data().kind == Kind::Seq => "a list",
            None => "a mapping",
        }
    }

    pub fn as_seq(self) -> Option<Seq<'t>> {
        let data = self.data();
        (data.kind == Kind::Seq)
            .then(|| Seq { tree: self.tree, items: &self.tree.items[data.start as usize..][..data.len as usize] })
    }

    pub fn as_map(self) -> Option<Map<'t>> {
        let data = self.data();
        (data.kind == Kind::Map)
            .then(|| Map { tree: self.tree, entries: &self.tree.entries[data.start as usize..][..data.len as usize] })
    }

    /// A sequence's items; none for anything else.
    pub fn items(self) -> Seq<'t> {
        self.as_seq().unwrap_or(Seq { tree: self.tree, items: &[] })
    }

    /// A mapping's entries; none for anything else.
    pub fn entries(self) -> Map<'t> {
        self.as_map().unwrap_or(Map { tree: self.tree, entries: &[] })
    }

    pub fn get(self, name: &str) -> Option<Node<'t>> {
        self.as_map()?.get(name)
    }

    pub fn key(self, name: &str) -> Option<Key<'t>> {
        self.as_map()?.key(name)
    }
}

impl fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{} ", self.line(), self.col())?;
        if let Some((value, plain)) = self.scalar() {
            return if plain { write!(f, "{value}") } else { write!(f, "{value:?}") };
        }
        if let Some(seq) = self.as_seq() {
            return f.debug_list().entries(seq.iter()).finish();
        }
        let map = self.as_map().expect("a node is a scalar, a sequence or a mapping");
        f.debug_map().entries(map.iter().map(|(key, value)| (key.name, value))).finish()
    }
}

/// Nodes are equal when they hold the same values on the same lines and
/// columns, keys included (what the two readers must agree on).
impl PartialEq for Node<'_> {
    fn eq(&self, other: &Node) -> bool {
        if (self.line(), self.col()) != (other.line(), other.col()) {
            return false;
        }
        if let (Some(a), Some(b)) = (self.as_seq(), other.as_seq()) {
            return a.len() == b.len() && a.iter().zip(b.iter()).all(|(p, q)| p == q);
        }
        if let (Some(a), Some(b)) = (self.as_map(), other.as_map()) {
            return a.len() == b.len() && a.iter().zip(b.iter()).all(|(p, q)| p == q);
        }
        self.scalar().is_some() && self.scalar() == other.scalar()
    }
}

impl PartialEq for Tree<'_> {
    fn eq(&self, other: &Tree) -> bool {
        self.root() == other.root()
    }
}

impl<'t> Seq<'t> {
    pub fn len(self) -> usize {
        self.items.len()
    }

    pub fn is_empty(self) -> bool {
        self.items.is_empty()
    }

    pub fn iter(self) -> impl ExactSizeIterator<Item = Node<'t>> + use<'t> {
        let tree = self.tree;
        self.items.iter().map(move |&id| Node { tree, id })
    }

    pub fn get(self, index: usize) -> Option<Node<'t>> {
        Some(Node { tree: self.tree, id: *self.items.get(index)? })
    }
}

impl<'t> Map<'t> {
    pub fn len(self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(self) -> bool {
        self.entries.is_empty()
    }

    pub fn iter(self) -> impl ExactSizeIterator<Item = (Key<'t>, Node<'t>)> + use<'t> {
        let tree = self.tree;
        self.entries
            .iter()
            .map(move |e| (Key { name: tree.str(e.name), line: e.line, col: e.col }, Node { tree, id: e.value }))
    }

    /// The value of the first entry named `name`.
    pub fn get(self, name: &str) -> Option<Node<'t>> {
        let entry = self.find(name)?;
        Some(Node { tree: self.tree, id: entry.value })
    }

    pub fn key(self, name: &str) -> Option<Key<'t>> {
        let e = self.find(name)?;
        Some(Key { name: self.tree.str(e.name), line: e.line, col: e.col })
    }

    fn find(self, name: &str) -> Option<&'t EntryData> {
        self.entries.iter().find(|e| self.tree.str(e.name) == name)
    }
}

/// True when two YAML values are equal, wherever they sit in their files.
pub fn same_value(a: Node, b: Node) -> bool {
    if let (Some(x), Some(y)) = (a.as_seq(), b.as_seq()) {
        return x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_value(p, q));
    }
    if let (Some(x), Some(y)) = (a.as_map(), b.as_map()) {
        // A mapping's keys are unordered (YAML 1.2.2 §3.2.1.1).
        return x.len() == y.len() && x.iter().all(|(key, p)| y.get(key.name).is_some_and(|q| same_value(p, q)));
    }
    match (a.scalar_text(), b.scalar_text()) {
        (Some(x), Some(y)) => (x == y && a.is_plain() == b.is_plain()) || same_typed(a, b),
        _ => false,
    }
}

/// Whether two scalars are the same value as YAML's core schema types them:
/// `0x10` and `16`, `"abc"` and `abc`, `~` and `null`.
fn same_typed(a: Node, b: Node) -> bool {
    if let (Some(x), Some(y)) = (a.as_str(), b.as_str()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_f64(), b.as_f64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_bool(), b.as_bool()) {
        return x == y;
    }
    a.is_null() && b.is_null()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrowed_and_owned_values_read_back() {
        let text = "key: value\n";
        let mut builder = TreeBuilder::new(text);
        let name = builder.borrowed(&text[..3]);
        let value = builder.borrowed(&text[5..10]);
        let quoted = builder.owned("a \"quoted\" value");
        let empty = builder.owned("");
        let v = builder.scalar(value, true, 1, 6);
        let q = builder.scalar(quoted, false, 2, 6);
        let e = builder.scalar(empty, true, 3, 6);
        let list = builder.seq([q, e], 2, 1);
        let other = builder.owned("list");
        let root = builder.map([(name, 1, 1, v), (other, 2, 1, list)], 1, 1);
        let tree = builder.finish(root);
        let root = tree.root();
        assert_eq!(root.get("key").and_then(Node::as_str), Some("value"));
        let items: Vec<Node> = root.get("list").unwrap().as_seq().unwrap().iter().collect();
        assert_eq!(items[0].as_str(), Some("a \"quoted\" value"));
        assert!(items[1].is_null() && items[1].as_str().is_none());
        assert_eq!(root.key("list"), Some(Key { name: "list", line: 2, col: 1 }));
        let value = root.get("key").unwrap().id();
        let quoted = items[0].id();
        assert_eq!((tree.verbatim(value), tree.verbatim(quoted)), (Some("value"), None));
    }

    #[test]
    fn equal_trees_hold_the_same_values_at_the_same_places() {
        let text = "a: 1\nb: [x, 'y']\nc: {d: ~}\n";
        let tree = yaml::parse(text, 1).unwrap();
        assert_eq!(tree, yaml::parse(text, 1).unwrap());
        assert_ne!(tree, yaml::parse(text, 2).unwrap());
        assert_ne!(tree, yaml::parse(&text.replace("'y'", "y"), 1).unwrap());
        assert_ne!(tree, yaml::parse(&text.replace("d:", "e:"), 1).unwrap());
        assert_eq!(tree.root().get("c").unwrap().get("d").unwrap().type_name(), "empty (null)");
        assert_eq!(tree.root().get("a").unwrap().as_i64(), Some(1));
    }
}
