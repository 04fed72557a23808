{
  "targets": [
    {
      "target_name": "quarry_dot",
      "sources": ["dot.c"],
      "cflags": ["-O3", "-Wall", "-ffp-contract=off"]
    }
  ]
}
