//! [`Krate`]: the path by which the generated code names the runtime crate.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::Ident;

/// The runtime crate's package name, as published.
const PACKAGE: &str = "schemecs";

/// The runtime crate as the crate being compiled names it: `::schemecs`, or
/// `::game_ecs` when the user's Cargo.toml renames the dependency
/// (`game_ecs = { package = "schemecs", ... }`). Found once per derive, from
/// the manifest of the crate being compiled, and handed to every generator.
pub struct Krate {
    name: Ident,
}

impl Krate {
    /// Reads the caller's Cargo.toml. The runtime crate itself, its unit
    /// tests and doctests, and a caller whose manifest does not list the
    /// dependency (one that reaches it through another crate) get
    /// `::schemecs`; the runtime crate's `extern crate self as schemecs`
    /// makes that path work inside it.
    pub fn resolve() -> Self {
        let renamed = match proc_macro_crate::crate_name(PACKAGE) {
            Ok(proc_macro_crate::FoundCrate::Name(name)) => syn::parse_str::<Ident>(&name).ok(),
            Ok(proc_macro_crate::FoundCrate::Itself) | Err(_) => None,
        };
        Krate {
            name: renamed.unwrap_or_else(|| Ident::new(PACKAGE, Span::call_site())),
        }
    }

    /// The name alone, for text such as intra-doc links: `schemecs`.
    pub fn name(&self) -> &Ident {
        &self.name
    }

    /// `::schemecs` with every token at `span`, for a `quote_spanned!`
    /// template (whose interpolations keep their own spans): the compiler
    /// then points at the user's tokens, not at the derive.
    pub fn at(&self, span: Span) -> TokenStream {
        let name = Ident::new(&self.name.to_string(), span);
        quote_spanned!(span=> ::#name)
    }
}

impl ToTokens for Krate {
    /// `::schemecs`: absolute, so that a user's module named like the crate
    /// cannot capture it.
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let name = &self.name;
        tokens.extend(quote!(::#name));
    }
}
