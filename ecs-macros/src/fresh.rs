//! Names of the generated code's own that no name of the user's can meet.
//!
//! A local (parameter or `let`) is `__ecs_{name}` at a mixed-site span:
//! mixed-site, so that no local of the user's refers to it; prefixed,
//! because a unit struct or constant in scope (a tag `struct columns;`)
//! would still turn a plain `columns` binding into a pattern. A generic
//! parameter is not hygienic at all, so it gets a name that no identifier
//! of the input uses: `S` while no type of the input is named `S`.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::HashSet;

/// A local of the generated code: `__ecs_{name}`, mixed-site.
pub fn local(name: &str) -> Ident {
    Ident::new(&format!("__ecs_{name}"), Span::mixed_site())
}

/// The identifiers of an input, to pick generic parameters that none of
/// them is.
pub struct Taken(HashSet<String>);

impl Taken {
    /// Every identifier in `input`'s tokens (attributes, field names and
    /// types included), raw ones without their `r#`.
    pub fn of(input: &impl ToTokens) -> Self {
        fn collect(tokens: TokenStream, names: &mut HashSet<String>) {
            for token in tokens {
                match token {
                    TokenTree::Ident(ident) => {
                        let name = ident.to_string();
                        names.insert(name.trim_start_matches("r#").to_owned());
                    }
                    TokenTree::Group(group) => collect(group.stream(), names),
                    _ => {}
                }
            }
        }
        let mut names = HashSet::new();
        collect(input.to_token_stream(), &mut names);
        Taken(names)
    }

    /// A generic parameter named `name` if no identifier of the input is,
    /// else `__ecs_{name}`, `__ecs_{name}1`, ... : the first that none is.
    pub fn generic(&self, name: &str) -> Ident {
        let mut candidate = name.to_owned();
        let mut suffix = 0;
        while self.0.contains(&candidate) {
            candidate = match suffix {
                0 => format!("__ecs_{name}"),
                n => format!("__ecs_{name}{n}"),
            };
            suffix += 1;
        }
        Ident::new(&candidate, Span::call_site())
    }
}
