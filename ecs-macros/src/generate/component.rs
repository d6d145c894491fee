//! `impl Component<Physics> for Pos`: a component's bit, and its variant of
//! the column enum.

use super::{bit_literal, Names};
use crate::model::FieldModel;
use proc_macro2::TokenStream;
use quote::quote;

/// The impl for the component of `field`, whose bit is `bit`.
pub(super) fn component_impl(names: &Names, bit: usize, field: &FieldModel) -> TokenStream {
    let (schema, column) = (names.schema, &names.column);
    let (ty, variant, bit) = (field.ty, field.ident, bit_literal(bit));
    quote! {
        #[automatically_derived]
        impl ::ecs::Component<#schema> for #ty {
            const BIT: u32 = #bit;

            #[allow(unreachable_patterns)]
            #[inline]
            fn column(column: &#column) -> &::std::vec::Vec<Self> {
                match column {
                    #column::#variant(values) => values,
                    _ => ::ecs::__private::column_mismatch::<#schema>(#bit),
                }
            }

            #[allow(unreachable_patterns)]
            #[inline]
            fn column_mut(column: &mut #column) -> &mut ::std::vec::Vec<Self> {
                match column {
                    #column::#variant(values) => values,
                    _ => ::ecs::__private::column_mismatch::<#schema>(#bit),
                }
            }
        }
    }
}
