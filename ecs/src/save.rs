//! Save and load (feature `serde`): the pieces the generated code and the
//! world's `Serialize`/`Deserialize` share.
//!
//! `#[derive(Schema)]` cannot test this crate's features (a `cfg` in
//! generated code tests the user's crate), so it always calls the two macros
//! below, and they expand to the serde impls with the feature and to nothing
//! without it.
//!
//! Loading trusts no length in the input: sequences are read element by
//! element into vectors that grow as the data arrives (at most 1 MiB, or as
//! much as has arrived, is reserved ahead, up to the length the input
//! announces), and every count is checked against what the world already
//! read (rows against the table's entity list, tag values against the
//! entities that have the tag, entity indices against the slots).

/// With the feature: `Serialize` for the column enum (its values as a
/// sequence, the component known from the table's mask) and `LoadColumn`,
/// each bounded on every component type (see the `Clone` impl of the column).
/// `deserializer` names `load`'s type parameter: one no component type has.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __schema_serde_columns {
    (column: $column:ident, deserializer: $d:ident, components: [$($variant:ident: $ty:ty => $store:ty),* $(,)?] $(,)?) => {
        #[automatically_derived]
        impl $crate::__private::serde::Serialize for $column
        where
            $(for<'__ecs> $store: $crate::__private::SaveColumn,)*
        {
            fn serialize<__S: $crate::__private::serde::Serializer>(
                &self,
                __ecs_serializer: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                match self {
                    $(Self::$variant(__ecs_values) => $crate::__private::SaveColumn::save(__ecs_values, __ecs_serializer),)*
                }
            }
        }

        #[automatically_derived]
        impl $crate::__private::LoadColumn for $column
        where
            $(for<'__de> $store: $crate::__private::LoadRows<'__de>,)*
        {
            fn load<'__de, $d: $crate::__private::serde::Deserializer<'__de>>(
                __ecs_bit: u32,
                __ecs_rows: usize,
                __ecs_deserializer: $d,
            ) -> ::core::result::Result<Self, $d::Error> {
                let mut __ecs_next = 0u32;
                $(
                    if __ecs_bit == __ecs_next {
                        let __ecs_what = ::core::concat!("values of `", ::core::stringify!($ty), "`");
                        return <$store as $crate::__private::LoadRows<'__de>>::load(
                            __ecs_rows,
                            __ecs_what,
                            __ecs_deserializer,
                        )
                            .map(Self::$variant);
                    }
                    __ecs_next += 1;
                )*
                let _ = __ecs_next;
                ::core::result::Result::Err($crate::__private::reject("no such component bit"))
            }
        }
    };
}

/// Without the feature: nothing.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __schema_serde_columns {
    ($($anything:tt)*) => {};
}

/// With the feature: `Serialize` and `Deserialize` for the resources struct,
/// as a struct of its fields in order (a tuple in formats without field
/// names, an object in JSON; either is read back), bounded on each field's
/// type.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __schema_serde_resources {
    (
        resources: $resources:ident,
        count: $count:literal,
        fields: [$($field:ident: $param:ident = $index:literal),* $(,)?] $(,)?
    ) => {
        #[automatically_derived]
        impl<$($param: $crate::__private::serde::Serialize),*>
            $crate::__private::serde::Serialize for $resources<$($param),*>
        {
            fn serialize<__S: $crate::__private::serde::Serializer>(
                &self,
                __ecs_serializer: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                use $crate::__private::serde::ser::SerializeStruct;
                #[allow(unused_mut)]
                let mut __ecs_struct = __ecs_serializer
                    .serialize_struct(::core::stringify!($resources), $count)?;
                $(__ecs_struct.serialize_field(::core::stringify!($field), &self.$field)?;)*
                __ecs_struct.end()
            }
        }

        #[automatically_derived]
        impl<'__de, $($param: $crate::__private::serde::Deserialize<'__de>),*>
            $crate::__private::serde::Deserialize<'__de> for $resources<$($param),*>
        {
            fn deserialize<__D: $crate::__private::serde::Deserializer<'__de>>(
                __ecs_deserializer: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                struct Fields<$($param),*>(::core::marker::PhantomData<($($param,)*)>);

                impl<'__de, $($param: $crate::__private::serde::Deserialize<'__de>),*>
                    $crate::__private::serde::de::Visitor<'__de> for Fields<$($param),*>
                {
                    type Value = $resources<$($param),*>;

                    fn expecting(
                        &self,
                        __ecs_f: &mut ::core::fmt::Formatter<'_>,
                    ) -> ::core::fmt::Result {
                        __ecs_f.write_str(::core::concat!("the resources of a world (", ::core::stringify!($resources), ")"))
                    }

                    #[allow(unused_mut, unused_variables)]
                    fn visit_seq<__A: $crate::__private::serde::de::SeqAccess<'__de>>(
                        self,
                        mut __ecs_seq: __A,
                    ) -> ::core::result::Result<Self::Value, __A::Error> {
                        ::core::result::Result::Ok($resources {
                            $($field: match __ecs_seq.next_element()? {
                                ::core::option::Option::Some(__ecs_value) => __ecs_value,
                                ::core::option::Option::None => {
                                    return ::core::result::Result::Err(
                                        $crate::__private::reject(::core::concat!(
                                            "the save is cut short in its resources, before `",
                                            ::core::stringify!($field),
                                            "`",
                                        )),
                                    )
                                }
                            },)*
                        })
                    }

                    /// The fields by name, in any order.
                    #[allow(unused_mut, unused_variables, non_snake_case)]
                    fn visit_map<__A: $crate::__private::serde::de::MapAccess<'__de>>(
                        self,
                        mut __ecs_map: __A,
                    ) -> ::core::result::Result<Self::Value, __A::Error> {
                        const __ECS_WITHIN: &str = "the `resources` object";
                        $(let mut $field: ::core::option::Option<$param> = ::core::option::Option::None;)*
                        while let ::core::option::Option::Some(__ecs_key) =
                            __ecs_map.next_key::<$crate::__private::Key>()?
                        {
                            match &*__ecs_key {
                                $(::core::stringify!($field) => {
                                    if $field.is_some() {
                                        return ::core::result::Result::Err(
                                            $crate::__private::key_twice(__ECS_WITHIN, &__ecs_key),
                                        );
                                    }
                                    $field = ::core::option::Option::Some(__ecs_map.next_value()?);
                                })*
                                _ => {
                                    return ::core::result::Result::Err(
                                        $crate::__private::key_unknown(
                                            __ECS_WITHIN,
                                            &__ecs_key,
                                            &[$(::core::stringify!($field)),*],
                                        ),
                                    )
                                }
                            }
                        }
                        ::core::result::Result::Ok($resources {
                            $($field: match $field {
                                ::core::option::Option::Some(__ecs_value) => __ecs_value,
                                ::core::option::Option::None => {
                                    return ::core::result::Result::Err(
                                        $crate::__private::key_missing(
                                            __ECS_WITHIN,
                                            ::core::stringify!($field),
                                        ),
                                    )
                                }
                            },)*
                        })
                    }
                }

                __ecs_deserializer.deserialize_struct(
                    ::core::stringify!($resources),
                    &[$(::core::stringify!($field)),*],
                    Fields(::core::marker::PhantomData),
                )
            }
        }
    };
}

/// Without the feature: nothing.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __schema_serde_resources {
    ($($anything:tt)*) => {};
}

#[cfg(feature = "serde")]
pub(crate) use with_serde::{bounded, take_reason, Bounded};
#[cfg(feature = "serde")]
pub use with_serde::{
    key_missing, key_twice, key_unknown, load_rows, reject, Key, LoadColumn, LoadError, LoadRows,
    SaveColumn,
};

#[cfg(feature = "serde")]
mod with_serde {
    use core::fmt;
    use core::marker::PhantomData;
    use serde::de::{DeserializeSeed, Deserializer, Error, SeqAccess, Visitor};
    use serde::Deserialize;
    use std::cell::RefCell;

    /// Why [`World::load`](crate::world::World::load) refused a save.
    ///
    /// A format reports a refusal as its own error type, and some formats
    /// keep no message in it: postcard's says only "Serde Deserialization
    /// Error" however the save was wrong. `load` keeps the reason beside it.
    ///
    /// Its text includes the format's error (the reason, for
    /// [`Invalid`](Self::Invalid)), so [`source`](std::error::Error::source)
    /// goes on below it, with the format's error's own source: a reporter
    /// that prints the chain prints each message once.
    #[derive(Debug)]
    #[non_exhaustive]
    pub enum LoadError<E> {
        /// The format could not read the input as a save: it is cut short,
        /// or holds a value of the wrong type or one a component's own
        /// `Deserialize` refused. The format's error says where.
        Format(E),
        /// The input reads as a save, but not as one of a world of this
        /// schema: it is of another schema or version, or would break an
        /// invariant of the world (an entity in two rows, a column of the
        /// wrong length, ...). `reason` says which; `format` is the error the
        /// format made of it, which may not.
        Invalid {
            /// What is wrong with the save, in words.
            reason: String,
            /// The format's error for the same refusal.
            format: E,
        },
    }

    impl<E: fmt::Display> fmt::Display for LoadError<E> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                LoadError::Format(error) => write!(f, "the save could not be read: {error}"),
                LoadError::Invalid { reason, .. } => write!(f, "the save is not valid: {reason}"),
            }
        }
    }

    /// The format's error is in the text (for `Invalid`, as the reason it
    /// was made from), so the chain goes on with its source.
    impl<E: std::error::Error + 'static> std::error::Error for LoadError<E> {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            match self {
                LoadError::Format(error) | LoadError::Invalid { format: error, .. } => {
                    error.source()
                }
            }
        }
    }

    thread_local! {
        /// The reason for the first refusal of the load running on this
        /// thread, kept for [`World::load`](crate::world::World::load).
        static REASON: RefCell<Option<String>> = const { RefCell::new(None) };
    }

    /// The format's error for a refused save, saying `reason`; the reason is
    /// also kept (the first of a load), for `World::load` to return when the
    /// format drops it.
    #[doc(hidden)]
    pub fn reject<E: Error>(reason: impl fmt::Display) -> E {
        let reason = reason.to_string();
        let error = E::custom(&reason);
        REASON.with(|kept| {
            kept.borrow_mut().get_or_insert(reason);
        });
        error
    }

    /// A key read in a readable save: owned, as a format may hand out none
    /// borrowed (`serde_json::Value` does not).
    #[doc(hidden)]
    pub type Key = std::string::String;

    /// The error for an object of a readable save (named `within`) that
    /// has `key` twice.
    #[doc(hidden)]
    pub fn key_twice<E: Error>(within: &str, key: &str) -> E {
        reject(format_args!("{within} of the save has `{key}` twice"))
    }

    /// The error for an object of a readable save that has `key`, which
    /// is none of the `expected` ones.
    #[doc(hidden)]
    pub fn key_unknown<E: Error>(within: &str, key: &str, expected: &[&str]) -> E {
        let expected: Vec<String> = expected.iter().map(|key| format!("`{key}`")).collect();
        let expected = match expected.is_empty() {
            true => "it takes none".to_owned(),
            false => expected.join(", "),
        };
        reject(format_args!(
            "{within} of the save has `{key}`, which is not one of its keys ({expected})"
        ))
    }

    /// The error for an object of a readable save without `key`.
    #[doc(hidden)]
    pub fn key_missing<E: Error>(within: &str, key: &str) -> E {
        reject(format_args!("{within} of the save lacks `{key}`"))
    }

    /// Takes the kept reason, leaving none.
    pub(crate) fn take_reason() -> Option<String> {
        REASON.with(|kept| kept.borrow_mut().take())
    }

    /// A count of `min..=max`, in words: "exactly 3", "at most 8", "3 to 8".
    struct Count(usize, usize);

    impl fmt::Display for Count {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match *self {
                Count(min, max) if min == max => write!(f, "exactly {min}"),
                Count(0, max) => write!(f, "at most {max}"),
                Count(min, max) => write!(f, "{min} to {max}"),
            }
        }
    }

    /// A column type that can be read back from a save: implemented by the
    /// generated column enum when every component is `Deserialize`.
    #[doc(hidden)]
    pub trait LoadColumn: Sized {
        /// The column of component `bit`, exactly `rows` values long.
        fn load<'de, D: Deserializer<'de>>(
            bit: u32,
            rows: usize,
            deserializer: D,
        ) -> Result<Self, D::Error>;
    }

    /// The most a load reserves ahead of the data: 1 MiB per vector.
    const AHEAD_BYTES: usize = 1 << 20;

    /// Room to reserve for `count` values of `T` before they are read.
    pub(crate) fn cautious<T>(count: usize) -> usize {
        count.min(AHEAD_BYTES / size_of::<T>().max(1))
    }

    /// Makes room in a full `values` for what comes next: towards the
    /// `announced` length, by at most as many values as have arrived (or
    /// [`AHEAD_BYTES`] worth, if more), so a false announcement can make a
    /// load reserve no more than twice the values it has read plus 1 MiB,
    /// while an honest one gets a vector of exactly its length (no doubling
    /// slack in a loaded world). Past the announcement, the usual amortized
    /// growth.
    #[cold]
    #[inline(never)]
    fn grow<T>(values: &mut Vec<T>, announced: usize) {
        let left = announced.saturating_sub(values.len());
        if left == 0 {
            values.reserve(1);
        } else {
            let step = values.len().max(cautious::<T>(usize::MAX)).max(1);
            values.reserve_exact(left.min(step));
        }
    }

    /// A sequence of exactly `rows` values of `T`, named `what` in errors.
    #[doc(hidden)]
    #[inline]
    pub fn load_rows<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        rows: usize,
        what: &'static str,
        deserializer: D,
    ) -> Result<Vec<T>, D::Error> {
        deserializer.deserialize_seq(Bounded::<T, _> {
            min: rows,
            max: rows,
            seed: PhantomData,
            what,
            marker: PhantomData,
        })
    }

    /// How a column's storage (`Vec<T>`, or `TrackedVec<T>` with its ticks)
    /// is written to a save.
    #[doc(hidden)]
    pub trait SaveColumn {
        /// Writes the column.
        fn save<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
    }

    /// How a column's storage is read back from a save: exactly `rows` rows,
    /// its values named `what` in errors.
    #[doc(hidden)]
    pub trait LoadRows<'de>: Sized {
        /// Reads the column.
        fn load<D: Deserializer<'de>>(
            rows: usize,
            what: &'static str,
            deserializer: D,
        ) -> Result<Self, D::Error>;
    }

    /// A sequence of `min..=max` elements read with copies of `seed`, into a
    /// vector grown as they arrive.
    pub(crate) struct Bounded<T, Seed> {
        pub(crate) min: usize,
        pub(crate) max: usize,
        pub(crate) seed: Seed,
        pub(crate) what: &'static str,
        pub(crate) marker: PhantomData<T>,
    }

    impl<'de, T, Seed> Visitor<'de> for Bounded<T, Seed>
    where
        Seed: DeserializeSeed<'de, Value = T> + Clone,
    {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{} {}", Count(self.min, self.max), self.what)
        }

        #[inline]
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let announced = seq.size_hint().unwrap_or(0).clamp(self.min, self.max);
            let mut values = Vec::with_capacity(cautious::<T>(announced));
            while values.len() < self.max {
                match seq.next_element_seed(self.seed.clone())? {
                    Some(value) => {
                        if values.len() == values.capacity() {
                            grow(&mut values, announced);
                        }
                        values.push(value);
                    }
                    None => break,
                }
            }
            if values.len() < self.min {
                return Err(reject(format_args!(
                    "the save has {} {} where it must have {}",
                    values.len(),
                    self.what,
                    Count(self.min, self.max)
                )));
            }
            if values.len() == self.max && seq.next_element_seed(self.seed.clone())?.is_some() {
                return Err(reject(format_args!(
                    "the save has more than {} {} where it must have {}",
                    self.max,
                    self.what,
                    Count(self.min, self.max)
                )));
            }
            Ok(values)
        }
    }

    impl<'de, T, Seed> DeserializeSeed<'de> for Bounded<T, Seed>
    where
        Seed: DeserializeSeed<'de, Value = T> + Clone,
    {
        type Value = Vec<T>;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<T>, D::Error> {
            deserializer.deserialize_seq(self)
        }
    }

    /// A sequence of at most `max` values of `T`.
    pub(crate) fn bounded<T>(max: usize, what: &'static str) -> Bounded<T, PhantomData<T>> {
        Bounded {
            min: 0,
            max,
            seed: PhantomData,
            what,
            marker: PhantomData,
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use serde::de::value::Error as ValueError;

        #[test]
        fn counts_read_as_words() {
            assert_eq!(Count(3, 3).to_string(), "exactly 3");
            assert_eq!(Count(0, 8).to_string(), "at most 8");
            assert_eq!(Count(3, 8).to_string(), "3 to 8");
        }

        /// A sequence of `len` zeros that announces `announced` elements.
        struct Announcing {
            announced: usize,
            len: usize,
        }

        impl<'de> SeqAccess<'de> for Announcing {
            type Error = ValueError;

            fn next_element_seed<T: DeserializeSeed<'de>>(
                &mut self,
                seed: T,
            ) -> Result<Option<T::Value>, ValueError> {
                if self.len == 0 {
                    return Ok(None);
                }
                self.len -= 1;
                seed.deserialize(serde::de::value::U32Deserializer::new(0))
                    .map(Some)
            }

            fn size_hint(&self) -> Option<usize> {
                Some(self.announced)
            }
        }

        /// The capacity of the vector read from `len` values announced as
        /// `announced`, of at most `max`.
        fn capacity(announced: usize, len: usize, max: usize) -> usize {
            let values = bounded::<u32>(max, "values")
                .visit_seq(Announcing { announced, len })
                .unwrap();
            assert_eq!(values.len(), len);
            values.capacity()
        }

        const CHUNK: usize = AHEAD_BYTES / 4;

        #[test]
        fn an_honest_announcement_gives_a_vector_of_exactly_its_length() {
            for len in [0, 1, 1000, CHUNK, CHUNK + 1, 3 * CHUNK + 17] {
                assert_eq!(capacity(len, len, usize::MAX), len);
            }
        }

        #[test]
        fn a_false_announcement_reserves_at_most_twice_what_arrived_and_a_chunk() {
            assert_eq!(capacity(1 << 30, 3, usize::MAX), CHUNK);
            let len = 5 * CHUNK / 2;
            let reserved = capacity(1 << 30, len, usize::MAX);
            assert!(reserved <= 2 * len + CHUNK, "{reserved} for {len}");
            // Nor beyond what the world allows, whatever is announced.
            assert_eq!(capacity(1 << 30, 10, 100), 100);
        }

        #[test]
        fn past_the_announcement_a_vector_grows_as_usual() {
            assert!(capacity(10, 3 * CHUNK, usize::MAX) >= 3 * CHUNK);
        }
    }
}
