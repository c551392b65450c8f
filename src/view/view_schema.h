/* The JSON Schemas of what the view publishes (Foxglove's channels carry
 * their schema as text). Foxglove's own types where one fits, in the shape
 * of its published schemas (foxglove.PoseInFrame, FrameTransforms,
 * SceneUpdate, Log); botwire's for what none fits (the robot's state,
 * range sensors with their mounts, link statistics, the world for the
 * page). docs/view.md lists them. */
#ifndef BOTWIRE_VIEW_SCHEMA_H
#define BOTWIRE_VIEW_SCHEMA_H

#define S_NUM "{\"type\":\"number\"}"
#define S_INT "{\"type\":\"integer\"}"
#define S_STR "{\"type\":\"string\"}"
#define S_BOOL "{\"type\":\"boolean\"}"
#define S_ARR(item) "{\"type\":\"array\",\"items\":" item "}"
#define S_OBJ(props) "{\"type\":\"object\",\"properties\":{" props "}}"
#define S_OBJT(title, props) \
    "{\"title\":\"" title "\",\"type\":\"object\",\"properties\":{" props "}}"

#define S_TIME S_OBJ("\"sec\":" S_INT ",\"nsec\":" S_INT)
#define S_VEC3 S_OBJ("\"x\":" S_NUM ",\"y\":" S_NUM ",\"z\":" S_NUM)
#define S_QUAT S_OBJ("\"x\":" S_NUM ",\"y\":" S_NUM ",\"z\":" S_NUM ",\"w\":" S_NUM)
#define S_POSE S_OBJ("\"position\":" S_VEC3 ",\"orientation\":" S_QUAT)
#define S_COLOR S_OBJ("\"r\":" S_NUM ",\"g\":" S_NUM ",\"b\":" S_NUM ",\"a\":" S_NUM)
#define S_KV S_OBJ("\"key\":" S_STR ",\"value\":" S_STR)

#define SCHEMA_POSE_IN_FRAME \
    S_OBJT("foxglove.PoseInFrame", "\"timestamp\":" S_TIME ",\"frame_id\":" S_STR ",\"pose\":" S_POSE)

#define S_FRAME_TRANSFORM                                                                  \
    S_OBJ("\"timestamp\":" S_TIME ",\"parent_frame_id\":" S_STR ",\"child_frame_id\":" S_STR \
          ",\"translation\":" S_VEC3 ",\"rotation\":" S_QUAT)
#define SCHEMA_FRAME_TRANSFORMS \
    S_OBJT("foxglove.FrameTransforms", "\"transforms\":" S_ARR(S_FRAME_TRANSFORM))

#define SCHEMA_LOG                                                                          \
    S_OBJT("foxglove.Log", "\"timestamp\":" S_TIME ",\"level\":" S_INT ",\"message\":" S_STR \
                           ",\"name\":" S_STR ",\"file\":" S_STR ",\"line\":" S_INT)

#define S_ARROW                                                                            \
    S_OBJ("\"pose\":" S_POSE ",\"shaft_length\":" S_NUM ",\"shaft_diameter\":" S_NUM        \
          ",\"head_length\":" S_NUM ",\"head_diameter\":" S_NUM ",\"color\":" S_COLOR)
#define S_CUBE S_OBJ("\"pose\":" S_POSE ",\"size\":" S_VEC3 ",\"color\":" S_COLOR)
#define S_CYLINDER                                                                         \
    S_OBJ("\"pose\":" S_POSE ",\"size\":" S_VEC3 ",\"bottom_scale\":" S_NUM                \
          ",\"top_scale\":" S_NUM ",\"color\":" S_COLOR)
#define S_LINE                                                                             \
    S_OBJ("\"type\":" S_INT ",\"pose\":" S_POSE ",\"thickness\":" S_NUM                     \
          ",\"scale_invariant\":" S_BOOL ",\"points\":" S_ARR(S_VEC3) ",\"color\":" S_COLOR   \
          ",\"colors\":" S_ARR(S_COLOR) ",\"indices\":" S_ARR(S_INT))
#define S_TRIANGLES                                                                        \
    S_OBJ("\"pose\":" S_POSE ",\"points\":" S_ARR(S_VEC3) ",\"color\":" S_COLOR             \
          ",\"colors\":" S_ARR(S_COLOR) ",\"indices\":" S_ARR(S_INT))
#define S_TEXT                                                                             \
    S_OBJ("\"pose\":" S_POSE ",\"billboard\":" S_BOOL ",\"font_size\":" S_NUM               \
          ",\"scale_invariant\":" S_BOOL ",\"color\":" S_COLOR ",\"text\":" S_STR)
#define S_ENTITY                                                                           \
    S_OBJ("\"timestamp\":" S_TIME ",\"frame_id\":" S_STR ",\"id\":" S_STR                   \
          ",\"lifetime\":" S_TIME ",\"frame_locked\":" S_BOOL ",\"metadata\":" S_ARR(S_KV)   \
          ",\"arrows\":" S_ARR(S_ARROW) ",\"cubes\":" S_ARR(S_CUBE)                          \
          ",\"spheres\":" S_ARR(S_CUBE) ",\"cylinders\":" S_ARR(S_CYLINDER)                  \
          ",\"lines\":" S_ARR(S_LINE) ",\"triangles\":" S_ARR(S_TRIANGLES)                   \
          ",\"texts\":" S_ARR(S_TEXT) ",\"models\":" S_ARR(S_OBJ("")))
#define S_DELETION S_OBJ("\"timestamp\":" S_TIME ",\"type\":" S_INT ",\"id\":" S_STR)
#define SCHEMA_SCENE_UPDATE                                                                \
    S_OBJT("foxglove.SceneUpdate",                                                         \
           "\"deletions\":" S_ARR(S_DELETION) ",\"entities\":" S_ARR(S_ENTITY))

/* botwire's own. */
#define S_POSE2 S_OBJ("\"x\":" S_NUM ",\"y\":" S_NUM ",\"theta\":" S_NUM)
#define SCHEMA_STATE                                                                        \
    S_OBJT("botwire.State",                                                                 \
           "\"timestamp\":" S_TIME ",\"robot\":" S_STR ",\"url\":" S_STR ",\"family\":" S_STR \
           ",\"online\":" S_BOOL ",\"odometry\":" S_POSE2 ",\"v\":" S_NUM ",\"w\":" S_NUM     \
           ",\"estimated\":" S_BOOL ",\"bumpers\":" S_INT ",\"cliffs\":" S_INT                \
           ",\"wheel_drops\":" S_INT ",\"battery\":" S_NUM ",\"fraction\":" S_NUM               \
           ",\"charging\":" S_STR ",\"self_driving\":" S_BOOL ",\"docked\":" S_BOOL            \
           ",\"mode\":" S_STR ",\"radius\":" S_NUM                                            \
           ",\"max_v\":" S_NUM ",\"max_w\":" S_NUM ",\"steer\":" S_BOOL                      \
           ",\"emulated\":" S_BOOL ",\"truth\":" S_POSE2 ",\"origin\":" S_POSE2              \
           ",\"command\":" S_OBJ("\"v\":" S_NUM ",\"w\":" S_NUM ",\"age\":" S_NUM))
#define S_RANGE                                                                             \
    S_OBJ("\"kind\":" S_STR ",\"mount\":" S_POSE2 ",\"at\":" S_POSE2 ",\"range\":" S_NUM \
          ",\"max_range\":" S_NUM                                                               \
          ",\"age\":" S_NUM)
#define SCHEMA_RANGES                                                                       \
    S_OBJT("botwire.Ranges",                                                                \
           "\"timestamp\":" S_TIME ",\"frame_id\":" S_STR ",\"ranges\":" S_ARR(S_RANGE))
#define SCHEMA_LINK                                                                         \
    S_OBJT("botwire.Link",                                                                  \
           "\"timestamp\":" S_TIME ",\"robot\":" S_STR ",\"side\":" S_STR ",\"online\":" S_BOOL \
           ",\"frames\":" S_INT ",\"rejected\":" S_INT ",\"skipped_bytes\":" S_INT              \
           ",\"unknown\":" S_INT ",\"implausible\":" S_INT ",\"reconnects\":" S_INT             \
           ",\"dropped_bytes\":" S_INT ",\"frame_rate\":" S_NUM)
#define S_XY S_OBJ("\"x\":" S_NUM ",\"y\":" S_NUM)
#define SCHEMA_WORLD                                                                        \
    S_OBJT("botwire.World",                                                                 \
           "\"frame_id\":" S_STR ",\"extent\":" S_ARR(S_NUM) ",\"walls\":" S_ARR(S_ARR(S_NUM)) \
           ",\"drops\":" S_ARR(S_ARR(S_XY)) ",\"dock\":" S_POSE2 ",\"docks\":"                   \
           S_ARR(S_OBJ("\"x\":" S_NUM ",\"y\":" S_NUM ",\"theta\":" S_NUM ",\"family\":" S_STR)) \
           ",\"labels\":"                                                                  \
           S_ARR(S_OBJ("\"x\":" S_NUM ",\"y\":" S_NUM ",\"text\":" S_STR)))
/* What the command channel takes: a twist, as geometry_msgs/Twist in JSON
 * (Foxglove's Teleop panel sends this shape). */
#define SCHEMA_TWIST                                                                        \
    S_OBJT("botwire.Twist", "\"linear\":" S_VEC3 ",\"angular\":" S_VEC3)

#endif
