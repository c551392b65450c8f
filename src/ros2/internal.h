/* What the ROS 2 layer's files share inside it (not the library's API). */
#ifndef BOTWIRE_ROS2_INTERNAL_H
#define BOTWIRE_ROS2_INTERNAL_H

#include <dds/dds.h>

#include "botwire/ros2.h"

/* The node's DDS participant. */
dds_entity_t bw_ros2_participant(const bw_ros2_t *n);
/* The nodes other participants announced on ros_discovery_info, as
 * "/ns/name" (the node's own announcement aside), into out[0..cap); their
 * number in *count (kept across calls: call again to add what came). */
void bw_ros2_nodes(bw_ros2_t *n, char (*out)[300], size_t cap, size_t *count);
/* The type botwire knows by its DDS name ("nav_msgs::msg::dds_::Odometry_"),
 * in the distro's layout; NULL for another. */
const dds_topic_descriptor_t *bw_ros2_descriptor(const char *dds_type, bw_ros2_distro_t distro);
/* "geometry_msgs::msg::dds_::Twist_" as ROS 2 names it: "geometry_msgs/msg/Twist". */
void bw_ros2_type_of_dds(char *out, size_t cap, const char *dds);

#endif
