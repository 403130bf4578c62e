"""The corridor graph: plant -> fault_injector -> simple_navigator, judged by the oracle.

    ros2 launch breakbench corridor.launch.py [plant:=embedded|gazebo] [world:=...]
        [channels:=...] [use_sim_time:=true] [cmd_vel_stamped:=false] [params_file:=...]
        [gz_world:=...] [gz_flags:="-r -s --headless-rendering"]
        [seed:=N] [run_id:=ID] [out_dir:=DIR] [real_time_factor:=X] [start_service:=true]
        [keep_running:=true] [estimator:=false]

The last six are one run's settings for a campaign on this launch file as an
external stack (`breakbench campaign S --out D --graph-cmd 'ros2 launch
breakbench corridor.launch.py seed:={seed} run_id:={run_id} out_dir:={out}
real_time_factor:=0 start_service:=true' --start-service /sim_bridge/start ...`,
docs/graph.md "Graph campaigns on an external stack"). Empty (the default), each leaves the parameters
file's value; given, it overrides (RUN_ARGS below): `seed` the plant's, the
fault injector's (its fault streams: the in-process run's of that seed,
REQ-GRAPH-SEED) and the oracle's seed (int64), `run_id` and `out_dir` the oracle's run id and
manifest directory, `real_time_factor` the plant's pacing (0: lock-step),
`start_service` the plant's start gate (true: sim_bridge steps only after a
call of /sim_bridge/start), `keep_running` the oracle's (true: it stays up
after its verdict, so the launch does not end; for a stack kept running
across runs, `breakbench campaign --keep-running --reset-service
/sim_bridge/reset --reset-service /fault_injector/reset --reset-service
/simple_navigator/reset --reset-service /oracle/reset`, REQ-GRAPH-RESET:
each run's seed, run id and output directory then come with the reset
services' request, not as launch arguments).

Nodes (graph contract, docs/nav2.md):
  - plant:=embedded (default): `sim_bridge` (breakbench_sim_bridge), our kinematic
    plant, publishing /clock, /scan, /odom, /tf, /oracle/odom, /gnss/fix, /imu/data,
    /wheel/odom and subscribing /cmd_vel.
  - plant:=gazebo: Gazebo Harmonic (ros_gz_sim gz_sim.launch.py) with
    config/gazebo/corridor.sdf and ros_gz_bridge's parameter_bridge with
    config/gazebo/bridge.yaml (bridge_stamped.yaml when cmd_vel_stamped:=true),
    which map onto exactly the same ROS topics. NOT run here (no Gazebo).
  - `fault_injector` (kraken_faults) between the plant's sensors and the navigator:
    the plant's sensor outputs are remapped to the `*_raw` topics
    (SENSOR_REMAPS below, the same list as launch/corridor.graph.yaml), and the
    injector republishes them on the plain names (faults/kraken_faults/config/channels.yaml).
  - `simple_navigator` (breakbench) on /odom, /scan -> /cmd_vel_nav (CMD_VEL_REMAPS),
    which the injector's actuator channel `cmd_vel` relays to the plant's /cmd_vel
    (channels_stamped.yaml when cmd_vel_stamped:=true); self-report on
    /navigator/self_report.
  - estimator:=true: `ekf_filter_node` (breakbench_estimator's ekf_node, the robot's
    EKF) on /odom, /imu/data, /gnss/fix -> /odometry/filtered, and simple_navigator
    drives from that (its pose_source:=estimator), as the graph campaign runs a
    scenario whose navigator has `pose_source: estimator`.
  - `oracle` (breakbench_oracle) on /oracle/odom only; it writes the run's manifest at
    the mission timeout and exits, which shuts the whole launch down.

Parameters come from `params_file` (default config/params/corridor.yaml of this
package). File-path parameters (`*_file`) in it are relative to the package share
directory; this file passes them to the nodes as absolute paths, as `breakbench up`
does. tests/launch/test_corridor_launch.py (run in CI by scripts/ros2cli_test.sh)
launches this file with the real launch system and checks that it starts the same
executables, node names, remaps and parameters file as launch/corridor.graph.yaml,
that every node exits 0 and the oracle publishes its verdict.
"""

from launch import LaunchDescription
import os

from launch.actions import (
    DeclareLaunchArgument,
    EmitEvent,
    IncludeLaunchDescription,
    OpaqueFunction,
    RegisterEventHandler,
)
from launch.conditions import IfCondition
from launch.event_handlers import OnProcessExit
from launch.events import Shutdown
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import (
    EqualsSubstitution,
    LaunchConfiguration,
    PathJoinSubstitution,
    PythonExpression,
)
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

# The plant's sensor outputs go to the fault injector's inputs. Same list, same order,
# as `sim_bridge.remaps` in launch/corridor.graph.yaml; applied to sim_bridge and, with
# plant:=gazebo, to ros_gz_bridge's parameter_bridge.
SENSOR_REMAPS = [
    ("/scan", "/scan_raw"),
    ("/odom", "/odom_raw"),
    ("/gnss/fix", "/gnss/fix_raw"),
    ("/imu/data", "/imu/data_raw"),
    ("/wheel/odom", "/wheel/odom_raw"),
]

# The navigator's command goes to the fault injector's actuator channel; the
# plant subscribes the injector's output /cmd_vel. Same as
# `simple_navigator.remaps` in launch/corridor.graph.yaml.
CMD_VEL_REMAPS = [("/cmd_vel", "/cmd_vel_nav")]

# Default parameters file, relative to the breakbench share directory (same as
# `params_file` in launch/corridor.graph.yaml).
PARAMS_FILE = "config/params/corridor.yaml"

# One run's launch arguments (default empty: the parameters file's value) and
# the (node, parameter, type) each overrides when given.
RUN_ARGS = {
    "seed": [("sim_bridge", "seed", int), ("fault_injector", "seed", int), ("oracle", "seed", int)],
    "run_id": [("oracle", "run_id", str)],
    "out_dir": [("oracle", "manifest_dir", os.path.abspath)],
    "real_time_factor": [("sim_bridge", "real_time_factor", float)],
    "start_service": [("sim_bridge", "start_service", lambda v: v.strip().lower() in ("true", "1"))],
    "keep_running": [("oracle", "keep_running", lambda v: v.strip().lower() in ("true", "1"))],
}


def run_overrides(context, node):
    """The parameters of `node` set by the run's launch arguments given (non-empty),
    as a list of at most one parameters dict for `Node(parameters=...)`."""
    out = {}
    for arg, targets in RUN_ARGS.items():
        value = LaunchConfiguration(arg).perform(context)
        if value == "":
            continue
        for name, param, typ in targets:
            if name == node:
                out[param] = typ(value)
    return [out] if out else []


def generate_launch_description():
    share = FindPackageShare("breakbench")
    world = LaunchConfiguration("world")
    channels = LaunchConfiguration("channels")
    params_file = LaunchConfiguration("params_file")
    plant = LaunchConfiguration("plant")
    use_sim_time = ParameterValue(LaunchConfiguration("use_sim_time"), value_type=bool)
    cmd_vel_stamped = ParameterValue(LaunchConfiguration("cmd_vel_stamped"), value_type=bool)
    robot_file = PathJoinSubstitution([share, "config", "robot.yaml"])
    navigator_file = PathJoinSubstitution([share, "config", "navigator.yaml"])

    pose_source = ParameterValue(
        PythonExpression(["'estimator' if '", LaunchConfiguration("estimator"), "' == 'true' else ''"]),
        value_type=str,
    )
    embedded = IfCondition(EqualsSubstitution(plant, "embedded"))
    gazebo = IfCondition(EqualsSubstitution(plant, "gazebo"))

    args = [
        DeclareLaunchArgument(
            "world",
            default_value=PathJoinSubstitution([share, "config", "corridor.yaml"]),
            description="World file (config/corridor.yaml format) for the plant, navigator and oracle",
        ),
        # Before `channels`: its default reads it.
        DeclareLaunchArgument(
            "cmd_vel_stamped",
            default_value="false",
            description="true: /cmd_vel is geometry_msgs/TwistStamped (Nav2 Kilted); false: Twist (Jazzy)",
        ),
        DeclareLaunchArgument(
            "channels",
            default_value=PathJoinSubstitution(
                [
                    FindPackageShare("kraken_faults"),
                    "config",
                    PythonExpression(
                        ["'channels_stamped.yaml' if '", LaunchConfiguration("cmd_vel_stamped"), "' == 'true' else 'channels.yaml'"]
                    ),
                ]
            ),
            description="fault_injector channels file (default: channels.yaml, channels_stamped.yaml when cmd_vel_stamped:=true)",
        ),
        DeclareLaunchArgument(
            "use_sim_time",
            default_value="true",
            description="Nodes other than the plant follow /clock",
        ),
        DeclareLaunchArgument(
            "plant",
            default_value="embedded",
            choices=["embedded", "gazebo"],
            description="embedded: breakbench sim_bridge; gazebo: Gazebo Harmonic + ros_gz_bridge",
        ),
        DeclareLaunchArgument(
            "gz_world",
            default_value=PathJoinSubstitution([share, "config", "gazebo", "corridor.sdf"]),
            description="plant:=gazebo: the SDF world (must match `world`; see tests/repository/gazebo_consistency.rs)",
        ),
        DeclareLaunchArgument(
            "gz_flags",
            default_value="-r -s --headless-rendering",
            description="plant:=gazebo: gz sim flags (-r run at once, -s server only; drop -s for the GUI)",
        ),
        DeclareLaunchArgument(
            "estimator",
            default_value="false",
            choices=["true", "false"],
            description="true: start the robot's EKF (ekf_node) and drive simple_navigator from its /odometry/filtered",
        ),
        DeclareLaunchArgument(
            "params_file",
            default_value=PathJoinSubstitution([share, PARAMS_FILE]),
            description="ROS 2 parameters file for every node of the graph",
        ),
    ] + [
        DeclareLaunchArgument(
            arg,
            default_value="",
            description="One run's setting (empty: the parameters file's): "
            + ", ".join(f"{node}.{param}" for node, param, _ in targets),
        )
        for arg, targets in RUN_ARGS.items()
    ]

    # ---- the plant: embedded ----
    def sim_bridge(context):
        return [
            Node(
                package="breakbench_sim_bridge",
                executable="sim_bridge",
                name="sim_bridge",
                output="screen",
                condition=embedded,
                parameters=[
                    params_file,
                    {
                        "world_file": world,
                        "robot_file": robot_file,
                        "cmd_vel_stamped": cmd_vel_stamped,
                    },
                ]
                + run_overrides(context, "sim_bridge"),
                remappings=SENSOR_REMAPS,
            )
        ]

    # ---- the plant: Gazebo Harmonic ----
    gz_sim = IncludeLaunchDescription(
        PythonLaunchDescriptionSource(
            PathJoinSubstitution([FindPackageShare("ros_gz_sim"), "launch", "gz_sim.launch.py"])
        ),
        launch_arguments={
            "gz_args": [LaunchConfiguration("gz_flags"), " ", LaunchConfiguration("gz_world")],
            "on_exit_shutdown": "true",
        }.items(),
        condition=gazebo,
    )
    bridge_yaml = PathJoinSubstitution(
        [
            share,
            "config",
            "gazebo",
            PythonExpression(["'bridge_stamped.yaml' if '", LaunchConfiguration("cmd_vel_stamped"), "' == 'true' else 'bridge.yaml'"]),
        ]
    )
    gz_bridge = Node(
        package="ros_gz_bridge",
        executable="parameter_bridge",
        name="gz_bridge",
        output="screen",
        condition=gazebo,
        parameters=[{"config_file": bridge_yaml, "use_sim_time": use_sim_time}],
        remappings=SENSOR_REMAPS,
    )

    # ---- fault injector between the sensors and the navigator ----
    def fault_injector(context):
        return [
            Node(
                package="kraken_faults",
                executable="fault_injector",
                name="fault_injector",
                output="screen",
                parameters=[params_file, {"channels_file": channels, "use_sim_time": use_sim_time}]
                + run_overrides(context, "fault_injector"),
            )
        ]

    # ---- the controller under test ----
    simple_navigator = Node(
        package="breakbench",
        executable="simple_navigator",
        name="simple_navigator",
        output="screen",
        parameters=[
            params_file,
            {"world_file": world, "navigator_file": navigator_file, "use_sim_time": use_sim_time},
            # estimator:=true: drive from ekf_node's /odometry/filtered ("": the navigator file's).
            {"pose_source": pose_source},
        ],
        # Its command goes through the injector's actuator channel cmd_vel
        # (/cmd_vel_nav -> /cmd_vel, REQ-FAULT-ACTUATOR).
        remappings=CMD_VEL_REMAPS,
    )

    # ---- the robot's EKF (estimator:=true) ----
    ekf = Node(
        package="breakbench_estimator",
        executable="ekf_node",
        name="ekf_filter_node",
        output="screen",
        condition=IfCondition(LaunchConfiguration("estimator")),
        parameters=[params_file, {"world_file": world, "use_sim_time": use_sim_time}],
    )

    # ---- the judge: ground truth only ----
    def oracle(context):
        judge = Node(
            package="breakbench_oracle",
            executable="oracle",
            name="oracle",
            output="screen",
            parameters=[params_file, {"world_file": world, "use_sim_time": use_sim_time}]
            + run_overrides(context, "oracle"),
        )
        # The run ends when the oracle has written its manifest and exited.
        end_with_oracle = RegisterEventHandler(
            OnProcessExit(target_action=judge, on_exit=[EmitEvent(event=Shutdown(reason="oracle finished"))])
        )
        return [judge, end_with_oracle]

    return LaunchDescription(
        args
        + [
            OpaqueFunction(function=fault_injector),
            ekf,
            simple_navigator,
            OpaqueFunction(function=oracle),
            OpaqueFunction(function=sim_bridge),
            gz_sim,
            gz_bridge,
        ]
    )
