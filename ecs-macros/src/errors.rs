//! [`Errors`]: where building the model and checking it put their errors, so
//! that a user sees every mistake of a schema in one build.

use quote::ToTokens;
use std::fmt::Display;

/// Every error found so far, combined into one `syn::Error` (each keeps its
/// own span and becomes its own `compile_error!`).
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// An error at the user's `tokens`.
    pub fn at(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The errors, if there was any.
    pub fn finish(self) -> Option<syn::Error> {
        self.0
    }
}
