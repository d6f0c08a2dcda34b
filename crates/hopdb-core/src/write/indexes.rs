//! Property indexes and uniqueness constraints (decision 0017), kept by the same write
//! transaction that writes the node records they index.

use super::*;

impl WriteTxn<'_> {
    /// Moves node `id`'s property index entries from those of `old` to those of `new` (either
    /// absent), checking uniqueness constraints for the values it gains.
    pub(super) fn reindex(&mut self, id: NodeId, old: Option<&NodeRec>, new: Option<&NodeRec>) -> Result<()> {
        if !self.cat().has_indexes() {
            return Ok(());
        }
        let entries = |tx: &Self, rec: Option<&NodeRec>| -> Vec<(IndexSpec, Probe)> {
            rec.map(|r| {
                entries_of(tx.cat(), r)
                    .into_iter()
                    .map(|(s, p)| (s.clone(), p))
                    .collect()
            })
            .unwrap_or_default()
        };
        let (before, after) = (entries(self, old), entries(self, new));
        let kept = |list: &[(IndexSpec, Probe)], s: &IndexSpec, p: &Probe| {
            list.iter().any(|(s2, p2)| s2.id == s.id && p2 == p)
        };
        for (s, p) in before.iter().filter(|(s, p)| !kept(&after, s, p)) {
            self.delete(Cf::PropIndex, &entry_key(s.id, &p.part, id));
            self.count(&count_index_key(s.id), -1);
        }
        for (s, p) in after.iter().filter(|(s, p)| !kept(&before, s, p)) {
            if let (true, Some(rec)) = (s.unique, new) {
                self.check_unique(s, p, id, rec)?;
            }
            self.put(Cf::PropIndex, &entry_key(s.id, &p.part, id), Vec::new());
            self.count(&count_index_key(s.id), 1);
        }
        Ok(())
    }

    /// Fails if a live node other than `id` holds `probe` in the unique index `spec`.
    pub(super) fn check_unique(&self, spec: &IndexSpec, probe: &Probe, id: NodeId, rec: &NodeRec) -> Result<()> {
        let other = holders(&self.reader(), spec, probe, 2)?.into_iter().find(|&n| n != id);
        match other {
            None => Ok(()),
            Some(other) => Err(self.violation(spec, rec, other)),
        }
    }

    /// The error for node `rec` sharing its value of `spec`'s property with node `other`.
    pub(super) fn violation(&self, spec: &IndexSpec, rec: &NodeRec, other: NodeId) -> Error {
        let existing = match self.node_rec(other) {
            Ok(Some(r)) => r.key.to_string(),
            _ => format!("with id {other}"),
        };
        Error::ConstraintViolation {
            label: self
                .cat()
                .label_name(spec.label)
                .map_or_else(|| format!("label {}", spec.label), |n| n.to_string()),
            property: spec.property.to_string(),
            value: Box::new(
                rec.props
                    .get(&*spec.property)
                    .cloned()
                    .unwrap_or(crate::value::Value::Null),
            ),
            node: rec.key.to_string(),
            existing,
        }
    }

    /// The index on (label, property), if any (without creating the label).
    pub(super) fn find_index(&self, label: &str, property: &str) -> Option<IndexSpec> {
        let l = self.cat().label_id(label)?;
        self.cat().index(l, property).cloned()
    }

    /// Writes an index definition and puts it in this transaction's catalog.
    pub(super) fn set_index(&mut self, spec: IndexSpec) {
        let (k, v) = def_entry(&spec);
        self.put(Cf::Meta, &k, v);
        self.cat_mut().add_index(spec);
    }

    /// Stores a full-text index definition; false if a full-text index of that name exists.
    /// The index holds no entries of its own: queries read the labelled nodes' text as this
    /// transaction or a later snapshot sees it, so it is never stale.
    pub fn create_fulltext_index(&mut self, def: &crate::fulltext::FulltextIndexDef) -> Result<bool> {
        self.run(|tx| {
            crate::fulltext::validate(def)?;
            let key = crate::fulltext::def_key(&def.name);
            if tx.get(Cf::Meta, &key)?.is_some() {
                return Ok(false);
            }
            tx.put(Cf::Meta, &key, crate::fulltext::encode(def));
            Ok(true)
        })
    }

    /// Removes the full-text index `name`; false if there is none.
    pub fn drop_fulltext_index(&mut self, name: &str) -> Result<bool> {
        self.run(|tx| {
            let key = crate::fulltext::def_key(name);
            if tx.get(Cf::Meta, &key)?.is_none() {
                return Ok(false);
            }
            tx.delete(Cf::Meta, &key);
            Ok(true)
        })
    }

    /// Creates the index on (`label`, `property`) and fills it from the nodes that carry the
    /// label (as this transaction sees them), in this transaction. Returns false if the index
    /// already exists (a uniqueness constraint's included). From then on every write keeps
    /// it: [`GraphRead::nodes_by_property`] answers from it. The label is created if new.
    pub fn create_index(&mut self, label: &str, property: &str) -> Result<bool> {
        self.run(|tx| tx.create_index_inner(label, property, false))
    }

    /// Makes `property` unique among the live nodes with `label`: a later write giving a
    /// second such node an equal value (Cypher equality: `1` equals `1.0`; null and NaN are
    /// never equal, so never conflict) fails with [`Error::ConstraintViolation`] and aborts
    /// the transaction. Each operation is checked against the state the transaction sees when
    /// it runs. Uses the index on (label, property), created (and filled) if missing; fails
    /// with `ConstraintViolation`, naming the value and two nodes holding it, if existing
    /// nodes already break it. Returns false if the constraint already exists.
    pub fn create_unique_constraint(&mut self, label: &str, property: &str) -> Result<bool> {
        self.run(|tx| tx.create_index_inner(label, property, true))
    }

    pub(super) fn create_index_inner(&mut self, label: &str, property: &str, unique: bool) -> Result<bool> {
        validate_name("property name", property)?;
        let l = self.label_id(label)?;
        if let Some(old) = self.cat().index(l, property).cloned() {
            if !unique || old.unique {
                return Ok(false);
            }
            let spec = IndexSpec { unique: true, ..old };
            self.check_index_unique(&spec)?;
            self.set_index(spec);
            return Ok(true);
        }
        let spec = IndexSpec {
            id: self.cat().next_index_id(),
            label: l,
            property: property.into(),
            unique,
            declared: !unique,
        };
        self.set_index(spec.clone());
        self.backfill(&spec)?;
        if unique {
            self.check_index_unique(&spec)?;
        }
        Ok(true)
    }

    /// Adds the entries of every node with the index's label, as this transaction sees them.
    pub(super) fn backfill(&mut self, spec: &IndexSpec) -> Result<()> {
        const CHUNK: usize = 1024;
        let p = spec.label.to_be_bytes();
        let mut ids = Vec::new();
        let mut bad = false;
        self.reader().scan(Cf::Labels, &p, &p, &mut |k, _| {
            match k.get(4..).and_then(parse_id) {
                Some(id) => ids.push(id),
                None => bad = true,
            }
            !bad
        })?;
        if bad {
            return Err(corrupt_rec("label index entry"));
        }
        let mut entries = Vec::new();
        for chunk in ids.chunks(CHUNK) {
            let keys: Vec<Vec<u8>> = chunk.iter().map(|id| id_bytes(*id).to_vec()).collect();
            for (id, v) in chunk.iter().zip(self.reader().multi_get(Cf::Nodes, &keys)?) {
                let v = v.ok_or_else(|| corrupt_rec("label index entry of a missing node"))?;
                let rec = NodeRec::decode(&v)?;
                if let Some(p) = rec.props.get(&*spec.property).and_then(Probe::of) {
                    entries.push(entry_key(spec.id, &p.part, *id));
                }
            }
        }
        self.count(&count_index_key(spec.id), entries.len() as i64);
        for e in entries {
            self.put(Cf::PropIndex, &e, Vec::new());
        }
        Ok(())
    }

    /// Fails with [`Error::ConstraintViolation`] if two entries of `spec` hold equal values:
    /// one ordered scan (equal values are adjacent), checking the values behind a shared hash.
    pub(super) fn check_index_unique(&self, spec: &IndexSpec) -> Result<()> {
        let p = spec.id.to_be_bytes();
        // Runs of entries sharing a value part: an inline part is a duplicate at once; a
        // hashed one is looked at below.
        let mut prev: Option<(Vec<u8>, NodeId)> = None;
        let mut dup = None;
        let mut hashed: Vec<Vec<NodeId>> = Vec::new();
        let mut bad = false;
        self.reader().scan(Cf::PropIndex, &p, &p, &mut |k, _| {
            let Some((_, part, node)) = parse_entry(k) else {
                bad = true;
                return false;
            };
            if let Some((pp, pn)) = &prev {
                if pp.as_slice() == part {
                    if !is_hashed(part) {
                        dup = Some((*pn, node));
                        return false;
                    }
                    match hashed.last_mut() {
                        Some(run) if run.last() == Some(pn) => run.push(node),
                        _ => hashed.push(vec![*pn, node]),
                    }
                }
            }
            prev = Some((part.to_vec(), node));
            true
        })?;
        if bad {
            return Err(corrupt_rec("property index entry"));
        }
        if dup.is_none() {
            'runs: for run in hashed {
                let mut seen: Vec<(Probe, NodeId)> = Vec::new();
                for n in run {
                    let rec = self
                        .node_rec(n)?
                        .ok_or_else(|| corrupt_rec("property index entry of a missing node"))?;
                    let Some(probe) = rec.props.get(&*spec.property).and_then(Probe::of) else {
                        continue;
                    };
                    if let Some((_, first)) = seen.iter().find(|(q, _)| *q == probe) {
                        dup = Some((*first, n));
                        break 'runs;
                    }
                    seen.push((probe, n));
                }
            }
        }
        match dup {
            None => Ok(()),
            Some((first, second)) => {
                let rec = self
                    .node_rec(second)?
                    .ok_or_else(|| corrupt_rec("property index entry of a missing node"))?;
                Err(self.violation(spec, &rec, first))
            }
        }
    }

    /// Drops the index on (`label`, `property`) and its entries. Returns false if there is no
    /// such index; fails if it belongs to a uniqueness constraint (drop that instead).
    pub fn drop_index(&mut self, label: &str, property: &str) -> Result<bool> {
        self.run(|tx| {
            let Some(spec) = tx.find_index(label, property) else {
                return Ok(false);
            };
            if spec.unique {
                return Err(Error::invalid(
                    "index",
                    format!(
                        "the index on :{label}({property}) enforces a uniqueness constraint: drop the constraint instead"
                    ),
                ));
            }
            tx.remove_index(&spec)?;
            Ok(true)
        })
    }

    /// Drops the uniqueness constraint on (`label`, `property`). Its index goes with it,
    /// unless it was created by [`WriteTxn::create_index`] (before or after the constraint),
    /// in which case it stays as a plain index. Returns false if there is no such constraint.
    pub fn drop_unique_constraint(&mut self, label: &str, property: &str) -> Result<bool> {
        self.run(|tx| {
            let Some(spec) = tx.find_index(label, property).filter(|s| s.unique) else {
                return Ok(false);
            };
            if spec.declared {
                tx.set_index(IndexSpec { unique: false, ..spec });
            } else {
                tx.remove_index(&spec)?;
            }
            Ok(true)
        })
    }

    /// Deletes an index's definition, entries and entry count.
    pub(super) fn remove_index(&mut self, spec: &IndexSpec) -> Result<()> {
        let p = spec.id.to_be_bytes();
        let mut keys = Vec::new();
        self.reader().scan(Cf::PropIndex, &p, &p, &mut |k, _| {
            keys.push(k.to_vec());
            true
        })?;
        for k in keys {
            self.delete(Cf::PropIndex, &k);
        }
        // Counter keys are never deleted: zeroed, so a later index reusing the id starts at 0.
        let key = count_index_key(spec.id);
        let now = match self.get(Cf::Counts, &key)? {
            Some(v) => crate::counters::decode_count(&v).ok_or_else(|| corrupt_rec("counter"))?,
            None => 0,
        };
        self.count(&key, -now);
        self.delete(Cf::Meta, &def_key(spec.label, &spec.property));
        self.cat_mut().remove_index(spec.label, &spec.property);
        Ok(())
    }
}
