{
  "targets": [{
    "target_name": "aloft_openjpeg",
    "sources": ["decode.c"],
    "include_dirs": ["<!@(pkg-config --cflags-only-I libopenjp2 2>/dev/null | sed 's/-I//g' || echo /usr/include/openjpeg-2.5)"],
    "libraries": ["<!@(pkg-config --libs libopenjp2 2>/dev/null || echo -lopenjp2)"],
    "cflags": ["-O3"],
    # Node dlcloses an addon when a worker that loaded it ends, so libopenjp2 was unmapped and mapped
    # again as pool workers came and went (the likeliest cause of a SIGABRT one CI run saw as a test's
    # pools closed). Linked never to be unloaded, it is mapped once per process.
    "ldflags": ["-Wl,-z,nodelete"]
  }]
}
