//! [`Schedule::to_dot`]: the plan that [`Schedule::describe`] writes out, as
//! a Graphviz graph.

use super::{plural, ran_text, Schedule, WaitText};
use crate::world_impl::Schema;

impl<S: Schema> Schedule<S> {
    /// The stage plan as a graph in Graphviz's DOT language: one cluster per
    /// stage (its systems may run at the same time), one node per system,
    /// and for each system that waits, an edge from the system it waits for,
    /// labelled with what it waits for (a component, a resource, commands, or
    /// `&mut World`; the edge's tooltip has the whole reason). These are the
    /// waits and stages of [`Schedule::describe`]; once the schedule has run,
    /// each cluster's label also says how its stage ran the last time.
    ///
    /// A system with a run condition shows it under its name (`physics`,
    /// then `if in_state(Phase::Playing)`). The exit and enter systems of
    /// the states the schedule applies form one dashed cluster per state,
    /// nodes `t0`, `t1`, ... in the order they run, each labelled with its
    /// transition (`on_enter(Phase::Playing)`) and its name.
    ///
    /// Nodes are named `s0`, `s1`, ... by the order the systems were added.
    /// `dot -Tsvg schedule.dot -o schedule.svg` draws the graph, stages from
    /// left to right.
    ///
    /// ```
    /// use schemecs::prelude::*;
    /// struct Pos(i64);
    /// struct Vel(i64);
    /// #[derive(Default)] struct Tick(u64);
    /// #[derive(Schema)]
    /// struct Physics { pos: Pos, vel: Vel, #[ecs(resource)] tick: Tick }
    ///
    /// fn inertia(mut movers: Query<(&mut Pos, &Vel)>) {
    ///     movers.for_each_mut(|(pos, vel)| pos.0 += vel.0);
    /// }
    /// fn report(positions: Query<&Pos>, tick: Res<Tick>) {}
    /// fn count(mut tick: ResMut<Tick>) {
    ///     tick.0 += 1;
    /// }
    ///
    /// let mut schedule = Schedule::<Physics>::new();
    /// schedule.add(inertia).add(count).add(report);
    /// let dot = schedule.to_dot();
    /// assert!(dot.starts_with("digraph \"Schedule<Physics>\" {\n"));
    /// assert!(dot.contains("  subgraph cluster_stage1 {\n"));
    /// assert!(dot.contains("    s2 [label=\"report\"];\n"));
    /// // report waits for inertia (for Pos) in stage 2; the edge names the
    /// // first wait that holds it there.
    /// assert!(dot.contains("  s0 -> s2 [label=\"Pos\", "));
    /// ```
    pub fn to_dot(&self) -> String {
        self.with_plan(|plan, runs| {
            let name = |i: usize| &*self.systems[i].name;
            let title = format!(
                "Schedule<{}>: {} in {}",
                S::NAME,
                plural(self.systems.len(), "system", "systems"),
                plural(plan.stages.len(), "stage", "stages"),
            );
            let mut out = format!("digraph {} {{\n", quoted(&format!("Schedule<{}>", S::NAME)));
            out += &format!("  label={};\n  labelloc=t;\n", quoted(&title));
            out += "  rankdir=LR;\n  node [shape=box, style=rounded];\n";
            for (number, stage) in plan.stages.iter().enumerate() {
                let mut label = format!("stage {}", number + 1);
                if let Some(Some(run)) = runs.get(number) {
                    label += &format!("\n{}", ran_text(run));
                }
                out += &format!("  subgraph cluster_stage{} {{\n", number + 1);
                out += &format!("    label={};\n", quoted(&label));
                for &i in stage {
                    out += &format!("    s{i} [label={}];\n", quoted(&self.shown(i, "\nif ")));
                }
                out += "  }\n";
            }
            // The exit and enter systems, per state, in the order they run.
            let mut node = 0;
            for (number, (state, systems)) in self.transition_systems().into_iter().enumerate() {
                out += &format!("  subgraph cluster_transitions{} {{\n", number + 1);
                let label = format!("transitions of {state}\nat the start of a run");
                out += &format!("    label={};\n    style=dashed;\n", quoted(&label));
                for (label, system) in systems {
                    out += &format!(
                        "    t{node} [label={}];\n",
                        quoted(&format!("{label}\n{system}"))
                    );
                    node += 1;
                }
                out += "  }\n";
            }
            for (i, wait) in plan.waits.iter().enumerate() {
                if let Some(wait) = wait {
                    let text = WaitText::new::<S>(name(wait.on), name(i), wait.reason);
                    out += &format!(
                        "  s{} -> s{i} [label={}, tooltip={}];\n",
                        wait.on,
                        quoted(&text.what),
                        quoted(&text.why)
                    );
                }
            }
            out += "}\n";
            out
        })
    }
}

/// `text` as a DOT string: in double quotes, with `"` and `\` escaped and
/// each line break written `\n` (which Graphviz centres).
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn quoted_escapes_quotes_backslashes_and_line_breaks() {
        assert_eq!(quoted("plain"), "\"plain\"");
        assert_eq!(quoted("say \"hi\""), "\"say \\\"hi\\\"\"");
        assert_eq!(quoted("a\\b"), "\"a\\\\b\"");
        assert_eq!(quoted("stage 1\ninline"), "\"stage 1\\ninline\"");
    }
}
