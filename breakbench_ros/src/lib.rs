//! Shared ROS 2 plumbing for Breakbench nodes.
