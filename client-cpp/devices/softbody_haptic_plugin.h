/* The C ABI of a haptic device plugin (docs/haptic-devices.md). A plugin is a shared library,
 * built outside this tree against a vendor SDK (OpenHaptics, Force Dimension DHD, ...), exporting
 *
 *     const softbody_haptic_plugin* softbody_haptic_plugin_v1(void);
 *
 * softbody-client loads it with dlopen. All functions are called from the haptic loop thread
 * except open and close. Plain C so any compiler and SDK can implement it. */
#ifndef SOFTBODY_HAPTIC_PLUGIN_H
#define SOFTBODY_HAPTIC_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SOFTBODY_HAPTIC_PLUGIN_ABI_VERSION 1u
#define SOFTBODY_HAPTIC_PLUGIN_ENTRY "softbody_haptic_plugin_v1"

typedef struct softbody_haptic_state {
  double position[3];    /* [m], device frame */
  double orientation[4]; /* unit quaternion w, x, y, z */
  double velocity[3];    /* [m/s] */
  uint32_t buttons;      /* bit i = button i */
} softbody_haptic_state;

typedef struct softbody_haptic_plugin {
  uint32_t abi_version; /* SOFTBODY_HAPTIC_PLUGIN_ABI_VERSION */
  uint32_t struct_size; /* sizeof(softbody_haptic_plugin) */
  const char* name;     /* e.g. "Geomagic Touch (OpenHaptics)" */
  /* Opens the device with a plugin-defined configuration string ("key=value;key=value").
   * Returns a handle, or NULL with a message in error[error_size]. */
  void* (*open)(const char* config, char* error, size_t error_size);
  /* Fills *state. time_s: the loop's clock. Returns 0, or non-zero when the device failed. */
  int (*read)(void* device, double time_s, softbody_haptic_state* state);
  /* Commands a force [N] in the device frame. Returns 0, or non-zero on failure. */
  int (*write_force)(void* device, double time_s, const double force[3]);
  /* Non-zero when the device has nothing more to give (a finished script). May be NULL. */
  int (*finished)(void* device);
  /* Zeroes the force and releases the device. */
  void (*close)(void* device);
} softbody_haptic_plugin;

typedef const softbody_haptic_plugin* (*softbody_haptic_plugin_entry)(void);

#ifdef __cplusplus
}
#endif

#endif
