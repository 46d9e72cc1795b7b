//! The agent ids of a commit's documents, for rules that compare one brief
//! with every other.

use std::sync::Arc;

/// Each document's agent id (its frontmatter's `agent`, as
/// [`crate::docs::brief::agent_of`] reads it) with its path, sorted by agent
/// id, then path. A source that keeps documents across evaluations (the App)
/// derives it once per commit from ids it keeps per blob, so comparing one
/// touched brief with 50,000 merged ones does not read them all again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentIndex {
    entries: Vec<(Arc<str>, Box<str>)>,
}

impl AgentIndex {
    /// The index of `(agent id, path)` pairs, in any order.
    pub fn new(mut entries: Vec<(Arc<str>, Box<str>)>) -> AgentIndex {
        entries.sort_unstable();
        AgentIndex { entries }
    }

    /// The paths whose agent id is `agent`, in path order.
    pub fn paths_of<'i, 'q>(&'i self, agent: &'q str) -> impl Iterator<Item = &'i str> + use<'i, 'q> {
        let start = self.entries.partition_point(|(a, _)| &**a < agent);
        self.entries[start..].iter().take_while(move |(a, _)| &**a == agent).map(|(_, path)| &**path)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_found_by_agent_id_in_path_order() {
        let entry = |a: &str, p: &str| (Arc::from(a), Box::from(p));
        let index = AgentIndex::new(vec![entry("SWARM-B", "z.md"), entry("SWARM-A", "a.md"), entry("SWARM-B", "b.md")]);
        assert_eq!(index.paths_of("SWARM-B").collect::<Vec<_>>(), ["b.md", "z.md"]);
        assert_eq!(index.paths_of("SWARM-A").collect::<Vec<_>>(), ["a.md"]);
        assert_eq!(index.paths_of("SWARM-C").count(), 0);
        assert_eq!(index.len(), 3);
    }
}
