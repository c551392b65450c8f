/* The subcommands of `botwire`; each returns the process exit status
 * (0 ok, 1 failure, 2 usage error). */
#ifndef BOTWIRE_TOOLS_COMMANDS_H
#define BOTWIRE_TOOLS_COMMANDS_H

int cmd_decode(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_drive(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_ports(int argc, char **argv);
int cmd_wander(int argc, char **argv);
int cmd_dock(int argc, char **argv);
int cmd_roslaunch(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_ros2(int argc, char **argv);

#endif
