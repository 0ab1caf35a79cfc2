//! Estimates of comprehensions: the macros' folds, in the two forms the interpreter
//! runs them.

use super::shape::{CostEstimate, Shape, Sizes};
use super::walk::{Estimate, Estimator};
use crate::check::Type;
use crate::syntax::ast::Comprehension;
use crate::syntax::folds::{Collect, collect_form, is_true};

impl Estimator<'_> {
    /// `accu = init; for each element while condition: accu = step; result`, charged
    /// as evaluated: init and result once, condition and step once per element.
    pub(super) fn comprehension(&mut self, c: &Comprehension, depth: u32) -> Estimate {
        let range = self.expr(&c.iter_range, depth);
        let iterations = range.shape.size;
        let vars = self.iteration_vars(c, &range.shape);
        let outer = self.scopes.len();
        let estimate = match collect_form(c) {
            Some(collect) => {
                // The initial `[]` (or `{}`) and the read of the result, as cel-go counts.
                let init = self.expr(&c.accu_init, depth).cost;
                self.scopes.push((c.accu_var.clone(), Shape::empty()));
                self.scopes.extend(vars);
                let built = self.collect(collect, iterations, depth);
                self.scopes.truncate(outer + 1);
                let result = self.expr(&c.result, depth).cost;
                Estimate { cost: init.plus(built.cost).plus(result), ..built }
            }
            None => {
                let init = self.expr(&c.accu_init, depth);
                // `cel.bind` loops zero times: its variable is the initial value.
                let accu = if iterations.max == 0 { init.shape } else { self.unknown() };
                self.scopes.push((c.accu_var.clone(), accu));
                self.scopes.extend(vars);
                let condition = self.expr(&c.loop_condition, depth).cost;
                let step = self.expr(&c.loop_step, depth).cost;
                // The result sees the accumulator but not the iteration variables.
                self.scopes.truncate(outer + 1);
                let result = self.expr(&c.result, depth);
                let mut looped = condition.plus(step).repeated(iterations);
                // A condition that may turn false can stop the loop after one test.
                if !is_true(&c.loop_condition) {
                    looped.min = condition.min.saturating_mul(iterations.min.min(1));
                }
                let cost = init.cost.plus(looped).plus(result.cost);
                Estimate { cost, shape: result.shape }
            }
        };
        self.scopes.truncate(outer);
        Estimate { cost: range.cost.plus(estimate.cost), shape: estimate.shape }
    }

    /// The loop of a `map`/`filter`/`transform*` fold, which the interpreter builds in
    /// place: per element, the filter, and for a kept element the step as if the
    /// accumulator were empty (appending costs the same whatever was collected).
    fn collect(&mut self, collect: Collect<'_>, iterations: Sizes, depth: u32) -> Estimate {
        let filter = collect.filter.map(|f| self.expr(f, depth).cost);
        let grown = self.expr(collect.grown, depth);
        let per_element = CostEstimate {
            min: filter.map_or(grown.cost.min, |f| f.min),
            max: filter.unwrap_or(CostEstimate::ZERO).plus(grown.cost).max,
        };
        let kept = if filter.is_some() { iterations.or_less() } else { iterations };
        let shape = Shape { size: grown.shape.size.times(kept), ..grown.shape };
        Estimate { cost: per_element.repeated(iterations), shape }
    }

    /// The comprehension variables and what they hold: one variable binds a list's
    /// elements or a map's keys; two bind index and element, or key and value.
    fn iteration_vars(&self, c: &Comprehension, range: &Shape) -> Vec<(String, Shape)> {
        let index = Shape::exact(0);
        let (first, second) = match self.checked.type_of(c.iter_range.id) {
            Some(Type::List(_)) if c.iter_var2.is_some() => (index, self.element(range, false)),
            Some(Type::List(_)) => (self.element(range, false), index),
            Some(Type::Map(..)) => (self.key(range), self.element(range, true)),
            _ => {
                let element = self.union(&self.element(range, false), &self.element(range, true));
                let first = if c.iter_var2.is_some() { index } else { element.clone() };
                (self.union(&first, &self.key(range)), element)
            }
        };
        let mut vars = vec![(c.iter_var.clone(), first)];
        if let Some(var2) = &c.iter_var2 {
            vars.push((var2.clone(), second));
        }
        vars
    }
}
