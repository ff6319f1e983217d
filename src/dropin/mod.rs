//! The programs fasthash stands in for when started under their names: each one's command
//! line, defaults and rules, where they differ from fasthash's own. What they share (hashing,
//! reading, line formats, manifests) stays in the modules that own it.
pub mod b3sum;
pub mod cksum;
pub mod xxhsum;
