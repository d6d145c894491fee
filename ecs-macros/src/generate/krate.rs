//! [`Krate`]: the path by which the generated code names the runtime crate.

use crate::model::{skip_to_comma, CRATE_KEY};
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};

/// The runtime crate's package name, as published.
const PACKAGE: &str = "schemecs";

/// The runtime crate as the crate being compiled names it: `::schemecs`;
/// the path given by `#[ecs(crate = path)]` on the derived type (for a
/// renamed dependency, or a crate that re-exports `schemecs`); or, with
/// feature `detect-rename`, the name the user's Cargo.toml gives the
/// dependency (`game_ecs = { package = "schemecs", ... }`). Found once per
/// derive and handed to every generator.
pub struct Krate {
    path: TokenStream,
}

impl Krate {
    /// The runtime crate for a derive on a type with attributes `attrs`:
    /// the path of its `#[ecs(crate = ..)]` if it has one (the derive's
    /// other `#[ecs(..)]` keys are skipped: `Schema` reads them itself),
    /// else see [`Krate`]. The runtime crate itself, its unit tests and
    /// doctests get `::schemecs`; the runtime crate's `extern crate self as
    /// schemecs` makes that path work inside it.
    ///
    /// # Errors
    ///
    /// A `crate` key whose value is not a path, or is given twice.
    pub fn resolve(attrs: &[syn::Attribute]) -> syn::Result<Self> {
        Self::read(attrs, None)
    }

    /// [`Krate::resolve`] for a derive whose only `#[ecs(..)]` key is
    /// `crate` (every derive but `Schema`), named `derive`, on `input`.
    ///
    /// # Errors
    ///
    /// As [`Krate::resolve`], and any other key.
    pub fn resolve_only(input: &syn::DeriveInput, derive: &str) -> syn::Result<Self> {
        Self::read(&input.attrs, Some((derive, &input.ident)))
    }

    /// Reads `crate = ..`; with `only`, the name of a derive that takes no
    /// other key and the type it is on, rejects the others.
    fn read(attrs: &[syn::Attribute], only: Option<(&str, &syn::Ident)>) -> syn::Result<Self> {
        let mut given: Option<syn::Path> = None;
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("ecs")) {
            // Only lists of keys are read here; anything else is `Schema`'s
            // to report (or the compiler's, for the other derives).
            if !matches!(attr.meta, syn::Meta::List(_)) {
                continue;
            }
            attr.parse_nested_meta(|meta| {
                if !meta.path.is_ident(CRATE_KEY) {
                    if let Some((derive, ident)) = only {
                        let key = meta.path.to_token_stream().to_string().replace(' ', "");
                        return Err(meta.error(format_args!(
                            "unknown `#[ecs(...)]` key `{key}` on `{ident}`: `#[derive({derive})]` \
                             takes only `crate = path` (the path of the `schemecs` crate, for a renamed \
                             dependency)"
                        )));
                    }
                    return skip_to_comma(meta.input);
                }
                let value = meta.value()?;
                // `crate = path`, or serde's spelling, `crate = "path"`.
                let path = if value.peek(syn::LitStr) {
                    value.parse::<syn::LitStr>()?.parse()?
                } else {
                    value.parse()?
                };
                if given.is_some() {
                    return Err(meta.error("`crate = ..` is given twice"));
                }
                given = Some(path);
                Ok(())
            })?;
        }
        Ok(match given {
            Some(path) => Krate {
                path: path.into_token_stream(),
            },
            None => Self::found(),
        })
    }

    /// The crate's path when no `#[ecs(crate = ..)]` names it.
    fn found() -> Self {
        let name = Self::renamed().unwrap_or_else(|| PACKAGE.to_owned());
        let name = syn::Ident::new(&name, Span::call_site());
        Krate {
            path: quote!(::#name),
        }
    }

    /// The name the caller's Cargo.toml gives the dependency, if it renames
    /// it (feature `detect-rename`). A caller whose manifest does not list
    /// the dependency (one that reaches it through another crate) gets
    /// none.
    #[cfg(feature = "detect-rename")]
    fn renamed() -> Option<String> {
        match proc_macro_crate::crate_name(PACKAGE) {
            Ok(proc_macro_crate::FoundCrate::Name(name)) => {
                syn::parse_str::<syn::Ident>(&name).ok().map(|_| name)
            }
            Ok(proc_macro_crate::FoundCrate::Itself) | Err(_) => None,
        }
    }

    /// Without feature `detect-rename`, the manifest is not read.
    #[cfg(not(feature = "detect-rename"))]
    fn renamed() -> Option<String> {
        None
    }

    /// The path as text, for text such as intra-doc links: `schemecs`.
    pub fn name(&self) -> String {
        let text = self.path.to_string().replace(' ', "");
        text.trim_start_matches("::").to_owned()
    }

    /// The path with every token at `span`, for a `quote_spanned!`
    /// template (whose interpolations keep their own spans): the compiler
    /// then points at the user's tokens, not at the derive.
    pub fn at(&self, span: Span) -> TokenStream {
        self.path
            .clone()
            .into_iter()
            .map(|mut token| {
                token.set_span(span);
                token
            })
            .collect::<TokenStream>()
    }
}

impl ToTokens for Krate {
    /// `::schemecs`: absolute, so that a user's module named like the crate
    /// cannot capture it (a path given by `crate = ..` is used as written).
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(self.path.clone());
    }
}
