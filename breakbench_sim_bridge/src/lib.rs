//! breakbench_sim_bridge: the in-process kinematic plant.
