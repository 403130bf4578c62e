"""The corridor graph: plant -> fault_injector -> simple_navigator, judged by the oracle.

    ros2 launch breakbench corridor.launch.py [plant:=embedded|gazebo] [world:=...]
        [channels:=...] [use_sim_time:=true] [cmd_vel_stamped:=false] [params_file:=...]
        [gz_world:=...] [gz_flags:="-r -s --headless-rendering"]

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
    injector republishes them on the plain names (kraken_faults/config/channels.yaml).
  - `simple_navigator` (breakbench) on /odom, /scan -> /cmd_vel, self-report on
    /navigator/self_report.
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
from launch.actions import DeclareLaunchArgument, EmitEvent, IncludeLaunchDescription, RegisterEventHandler
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

# Default parameters file, relative to the breakbench share directory (same as
# `params_file` in launch/corridor.graph.yaml).
PARAMS_FILE = "config/params/corridor.yaml"


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

    embedded = IfCondition(EqualsSubstitution(plant, "embedded"))
    gazebo = IfCondition(EqualsSubstitution(plant, "gazebo"))

    args = [
        DeclareLaunchArgument(
            "world",
            default_value=PathJoinSubstitution([share, "config", "corridor.yaml"]),
            description="World file (config/corridor.yaml format) for the plant, navigator and oracle",
        ),
        DeclareLaunchArgument(
            "channels",
            default_value=PathJoinSubstitution([FindPackageShare("kraken_faults"), "config", "channels.yaml"]),
            description="fault_injector channels file",
        ),
        DeclareLaunchArgument(
            "use_sim_time",
            default_value="true",
            description="Nodes other than the plant follow /clock",
        ),
        DeclareLaunchArgument(
            "cmd_vel_stamped",
            default_value="false",
            description="true: /cmd_vel is geometry_msgs/TwistStamped (Nav2 Kilted); false: Twist (Jazzy)",
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
            description="plant:=gazebo: the SDF world (must match `world`; see tests/gazebo_consistency.rs)",
        ),
        DeclareLaunchArgument(
            "gz_flags",
            default_value="-r -s --headless-rendering",
            description="plant:=gazebo: gz sim flags (-r run at once, -s server only; drop -s for the GUI)",
        ),
        DeclareLaunchArgument(
            "params_file",
            default_value=PathJoinSubstitution([share, PARAMS_FILE]),
            description="ROS 2 parameters file for every node of the graph",
        ),
    ]

    # ---- the plant: embedded ----
    sim_bridge = Node(
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
        ],
        remappings=SENSOR_REMAPS,
    )

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
    fault_injector = Node(
        package="kraken_faults",
        executable="fault_injector",
        name="fault_injector",
        output="screen",
        parameters=[params_file, {"channels_file": channels, "use_sim_time": use_sim_time}],
    )

    # ---- the controller under test ----
    simple_navigator = Node(
        package="breakbench",
        executable="simple_navigator",
        name="simple_navigator",
        output="screen",
        parameters=[
            params_file,
            {"world_file": world, "navigator_file": navigator_file, "use_sim_time": use_sim_time},
        ],
    )

    # ---- the judge: ground truth only ----
    oracle = Node(
        package="breakbench_oracle",
        executable="oracle",
        name="oracle",
        output="screen",
        parameters=[params_file, {"world_file": world, "use_sim_time": use_sim_time}],
    )
    # The run ends when the oracle has written its manifest and exited.
    end_with_oracle = RegisterEventHandler(
        OnProcessExit(target_action=oracle, on_exit=[EmitEvent(event=Shutdown(reason="oracle finished"))])
    )

    return LaunchDescription(
        args + [fault_injector, simple_navigator, oracle, end_with_oracle, sim_bridge, gz_sim, gz_bridge]
    )
