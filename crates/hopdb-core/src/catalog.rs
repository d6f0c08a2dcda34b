//! The edge-type and label dictionaries (names <-> dense u32 ids) and the property index
//! definitions, persisted in `meta` and loaded whole at open (they are small). Changes are
//! published when their batch commits, by swapping the shared `Arc<Catalog>`.

use crate::engine::{Cf, KvRead, Op};
use crate::error::{Error, Result};
use crate::index::{parse_def, IndexSpec};
use crate::records::{TypeId, META_INDEX_PREFIX, META_LABEL_PREFIX, META_TYPE_PREFIX};
use std::collections::HashMap;
use std::sync::Arc;

/// How edges of a type behave. Fixed when the type is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EdgeTypeOptions {
    /// One edge per unordered pair, listed from both ends; `a-b` and `b-a` are the same edge.
    pub undirected: bool,
    /// Parallel edges allowed: each edge gets a stable edge id (see `WriteTxn::add_edge`).
    pub multi: bool,
}

/// A declared edge type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeType {
    /// The type's name, as given on first use or declaration.
    pub name: Arc<str>,
    /// Dense id the store assigns at creation (0, 1, ...); it prefixes the type's adjacency keys.
    pub id: u32,
    /// Direction and multiplicity, fixed at creation.
    pub options: EdgeTypeOptions,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Catalog {
    types: HashMap<Arc<str>, EdgeType>,
    /// Indexed by type id (ids are dense): adjacency scans look a type up per edge.
    type_by_id: Vec<Option<EdgeType>>,
    labels: HashMap<Arc<str>, TypeId>,
    label_by_id: HashMap<TypeId, Arc<str>>,
    pub any_undirected: bool,
    /// Property indexes by label id (a label has few).
    indexes: HashMap<TypeId, Vec<IndexSpec>>,
}

const FLAG_UNDIRECTED: u8 = 1;
/// More edge types than any real schema has; ids at or above it are treated as corruption.
pub(crate) const MAX_TYPES: u32 = 1 << 20;
const FLAG_MULTI: u8 = 2;

impl Catalog {
    pub(crate) fn load(kv: &dyn KvRead) -> Result<Catalog> {
        let mut c = Catalog::default();
        let mut bad = None;
        kv.scan(Cf::Meta, META_TYPE_PREFIX, META_TYPE_PREFIX, &mut |k, v| {
            let name = std::str::from_utf8(&k[META_TYPE_PREFIX.len()..]);
            match (name, v) {
                // Type ids are dense; a huge one can only be damage (and would size the index).
                (Ok(name), [a, b, c2, d, flags]) if u32::from_be_bytes([*a, *b, *c2, *d]) < MAX_TYPES => {
                    c.add_type(EdgeType {
                        name: name.into(),
                        id: u32::from_be_bytes([*a, *b, *c2, *d]),
                        options: EdgeTypeOptions {
                            undirected: flags & FLAG_UNDIRECTED != 0,
                            multi: flags & FLAG_MULTI != 0,
                        },
                    });
                    true
                }
                _ => {
                    bad = Some("edge type entry");
                    false
                }
            }
        })?;
        kv.scan(Cf::Meta, META_LABEL_PREFIX, META_LABEL_PREFIX, &mut |k, v| match (
            std::str::from_utf8(&k[META_LABEL_PREFIX.len()..]),
            <[u8; 4]>::try_from(v),
        ) {
            (Ok(name), Ok(id)) => {
                c.add_label(name.into(), u32::from_be_bytes(id));
                true
            }
            _ => {
                bad = Some("label entry");
                false
            }
        })?;
        let mut specs = Vec::new();
        kv.scan(
            Cf::Meta,
            META_INDEX_PREFIX,
            META_INDEX_PREFIX,
            &mut |k, v| match parse_def(k, v) {
                Some(spec) => {
                    specs.push(spec);
                    true
                }
                None => {
                    bad = Some("property index definition");
                    false
                }
            },
        )?;
        for spec in specs {
            if c.label_name(spec.label).is_none() {
                bad = Some("property index definition naming an unknown label");
            }
            c.add_index(spec);
        }
        if let Some(what) = bad {
            return Err(Error::malformed(format!("{what} in meta"), "loading the catalog"));
        }
        Ok(c)
    }

    pub(crate) fn add_type(&mut self, t: EdgeType) {
        self.any_undirected |= t.options.undirected;
        let i = t.id as usize;
        if self.type_by_id.len() <= i {
            self.type_by_id.resize(i + 1, None);
        }
        self.type_by_id[i] = Some(t.clone());
        self.types.insert(t.name.clone(), t);
    }

    pub(crate) fn add_label(&mut self, name: Arc<str>, id: TypeId) {
        self.label_by_id.insert(id, name.clone());
        self.labels.insert(name, id);
    }

    pub(crate) fn type_named(&self, name: &str) -> Option<&EdgeType> {
        self.types.get(name)
    }
    pub(crate) fn type_by_id(&self, id: TypeId) -> Option<&EdgeType> {
        self.type_by_id.get(id as usize).and_then(Option::as_ref)
    }
    pub(crate) fn label_id(&self, name: &str) -> Option<TypeId> {
        self.labels.get(name).copied()
    }
    pub(crate) fn label_name(&self, id: TypeId) -> Option<&Arc<str>> {
        self.label_by_id.get(&id)
    }
    pub(crate) fn types(&self) -> impl Iterator<Item = &EdgeType> {
        self.type_by_id.iter().flatten()
    }
    pub(crate) fn labels(&self) -> impl Iterator<Item = (&Arc<str>, TypeId)> {
        self.labels.iter().map(|(n, i)| (n, *i))
    }
    pub(crate) fn next_type_id(&self) -> TypeId {
        self.type_by_id.len() as TypeId
    }
    pub(crate) fn next_label_id(&self) -> TypeId {
        self.label_by_id.keys().max().map_or(0, |m| m + 1)
    }

    /// Adds or replaces the index on (spec.label, spec.property).
    pub(crate) fn add_index(&mut self, spec: IndexSpec) {
        let on = self.indexes.entry(spec.label).or_default();
        on.retain(|s| s.property != spec.property);
        on.push(spec);
    }

    pub(crate) fn remove_index(&mut self, label: TypeId, property: &str) {
        if let Some(on) = self.indexes.get_mut(&label) {
            on.retain(|s| &*s.property != property);
            if on.is_empty() {
                self.indexes.remove(&label);
            }
        }
    }

    pub(crate) fn index(&self, label: TypeId, property: &str) -> Option<&IndexSpec> {
        self.indexes_on(label).iter().find(|s| &*s.property == property)
    }

    /// The indexes of nodes with label `label`.
    pub(crate) fn indexes_on(&self, label: TypeId) -> &[IndexSpec] {
        self.indexes.get(&label).map_or(&[], Vec::as_slice)
    }

    /// Whether any property index exists (writes skip index upkeep when none does).
    pub(crate) fn has_indexes(&self) -> bool {
        !self.indexes.is_empty()
    }

    pub(crate) fn all_indexes(&self) -> impl Iterator<Item = &IndexSpec> {
        self.indexes.values().flatten()
    }

    /// Index ids are dense: the highest + 1. A dropped index's id may be reused, since its
    /// entries and counter go with it.
    pub(crate) fn next_index_id(&self) -> u32 {
        self.all_indexes().map(|s| s.id + 1).max().unwrap_or(0)
    }
}

pub(crate) fn type_op(t: &EdgeType) -> Op {
    let mut k = META_TYPE_PREFIX.to_vec();
    k.extend_from_slice(t.name.as_bytes());
    let mut v = t.id.to_be_bytes().to_vec();
    let mut flags = 0;
    if t.options.undirected {
        flags |= FLAG_UNDIRECTED;
    }
    if t.options.multi {
        flags |= FLAG_MULTI;
    }
    v.push(flags);
    Op::Put(Cf::Meta, k, v)
}

pub(crate) fn label_op(name: &str, id: TypeId) -> Op {
    let mut k = META_LABEL_PREFIX.to_vec();
    k.extend_from_slice(name.as_bytes());
    Op::Put(Cf::Meta, k, id.to_be_bytes().to_vec())
}
