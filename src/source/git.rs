//! Reading a git checkout: base and head revisions, or the working tree.
