//! Between the WIT records and hush-core's types: the host's side of the
//! shared conversions, instantiated with the host's generated modules.

hush_wit_convert::host_conversions!(
    types = crate::component::hush::correlator::types,
    api = crate::component::exports::hush::correlator::correlator,
);
