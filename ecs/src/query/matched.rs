//! Matching: the tables whose archetype fits a query's
//! [`TableCondition`]s ([`MatchedTables`]), and the world's cache of them
//! per list of conditions ([`QueryCache`]).

use super::filter::TableCondition;
use crate::layout::Layout;
use crate::mask::{Mask, MaskBits};
use crate::storage::{MaskMap, TableId, Tables};

/// The tables matching one query's list of [`TableCondition`]s, kept up to
/// date as tables are created.
#[derive(Default)]
#[doc(hidden)]
pub struct MatchedTables {
    /// The [`Tables::layout`] the ids below belong to.
    layout: u64,
    tables: Vec<TableId>,
    /// Tables with an id below this have been tested.
    seen: usize,
}

/// By hand, for a `clone_from` that keeps the target's list (world snapshots).
impl Clone for MatchedTables {
    fn clone(&self) -> Self {
        MatchedTables {
            layout: self.layout,
            tables: self.tables.clone(),
            seen: self.seen,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.layout = source.layout;
        self.tables.clone_from(&source.tables);
        self.seen = source.seen;
    }
}

impl MatchedTables {
    /// The matching tables found so far, ascending.
    pub(crate) fn tables(&self) -> &[TableId] {
        &self.tables
    }

    /// Whether every table of `tables` has been tested.
    #[inline]
    pub(crate) fn is_current<S: Layout>(&self, tables: &Tables<S>) -> bool {
        self.layout == tables.layout() && self.seen == tables.len()
    }

    /// Tests the tables created since the last update against `conditions`
    /// (a table matches when it satisfies any one of them). Tables of
    /// another history (another world, or this one after a restore or a
    /// load) are all tested anew.
    pub(crate) fn update<S: Layout>(
        &mut self,
        tables: &Tables<S>,
        conditions: &[TableCondition],
    ) -> &[TableId] {
        if self.layout != tables.layout() {
            self.layout = tables.layout();
            self.tables.clear();
            self.seen = 0;
        }
        let new = tables.iter().enumerate().skip(self.seen);
        match conditions {
            // Without `Or`: the two mask tests, as the masks' own type.
            [condition] => {
                let required = S::Mask::from_u128(condition.required);
                let excluded = S::Mask::from_u128(condition.excluded);
                for (id, table) in new {
                    let mask = table.mask();
                    if mask.contains(required) && mask.intersection(excluded).is_empty() {
                        self.tables.push(TableId(id as u32));
                    }
                }
            }
            _ => {
                for (id, table) in new {
                    let mask = table.mask().bits().to_u128();
                    if conditions.iter().any(|condition| condition.matches(mask)) {
                        self.tables.push(TableId(id as u32));
                    }
                }
            }
        }
        self.seen = tables.len();
        &self.tables
    }
}

/// The world's [`MatchedTables`], one per list of conditions queried so far.
/// A list of one condition (a query without `Or`, by far the most common) is
/// keyed by its two masks, which is cheaper to hash than the list.
pub(crate) struct QueryCache<S: Layout> {
    by_masks: MaskMap<(S::Mask, S::Mask), MatchedTables>,
    by_conditions: MaskMap<&'static [TableCondition], MatchedTables>,
}

impl<S: Layout> Default for QueryCache<S> {
    fn default() -> Self {
        QueryCache {
            by_masks: MaskMap::default(),
            by_conditions: MaskMap::default(),
        }
    }
}

impl<S: Layout> Clone for QueryCache<S> {
    fn clone(&self) -> Self {
        QueryCache {
            by_masks: self.by_masks.clone(),
            by_conditions: self.by_conditions.clone(),
        }
    }

    /// Keeps each entry's list of tables where the key is in both caches:
    /// `HashMap::clone_from` would clone the values anew.
    fn clone_from(&mut self, source: &Self) {
        clone_map_from(&mut self.by_masks, &source.by_masks);
        clone_map_from(&mut self.by_conditions, &source.by_conditions);
    }
}

/// `target.clone_from(source)`, reusing the values of the keys both have.
fn clone_map_from<K, V>(target: &mut MaskMap<K, V>, source: &MaskMap<K, V>)
where
    K: Copy + Eq + core::hash::Hash,
    V: Clone,
{
    target.retain(|key, _| source.contains_key(key));
    for (key, value) in source {
        match target.get_mut(key) {
            Some(kept) => kept.clone_from(value),
            None => {
                target.insert(*key, value.clone());
            }
        }
    }
}

impl<S: Layout> QueryCache<S> {
    /// Makes the entries kept for table history `from` belong to `to`: for
    /// a world's cache copied along with its tables, whose copy gets a
    /// history token of its own.
    pub(crate) fn relabel(&mut self, from: u64, to: u64) {
        let entries = self
            .by_masks
            .values_mut()
            .chain(self.by_conditions.values_mut());
        for matched in entries.filter(|matched| matched.layout == from) {
            matched.layout = to;
        }
    }

    /// The tables matched so far for `conditions`, if it was queried before.
    #[inline]
    pub(crate) fn get(&self, conditions: &'static [TableCondition]) -> Option<&MatchedTables> {
        match conditions {
            [condition] => self.by_masks.get(&Self::masks(condition)),
            _ => self.by_conditions.get(conditions),
        }
    }

    /// The tables matched so far for `conditions`, made empty if it was never
    /// queried.
    #[inline]
    pub(crate) fn entry(&mut self, conditions: &'static [TableCondition]) -> &mut MatchedTables {
        match conditions {
            [condition] => self.by_masks.entry(Self::masks(condition)).or_default(),
            _ => self.by_conditions.entry(conditions).or_default(),
        }
    }

    #[inline]
    fn masks(condition: &TableCondition) -> (S::Mask, S::Mask) {
        (
            S::Mask::from_u128(condition.required),
            S::Mask::from_u128(condition.excluded),
        )
    }
}
