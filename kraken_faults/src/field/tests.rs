//! Tests of the field faults and stacks.
