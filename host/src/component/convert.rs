//! Between the WIT records and hush-core's types (the shared conversions,
//! instantiated with the host's generated modules).

hush_wit_convert::conversions!(
    types = crate::component::hush::correlator::types,
    api = crate::component::exports::hush::correlator::correlator,
);
