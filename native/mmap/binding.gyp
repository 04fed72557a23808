{
  "targets": [
    {
      "target_name": "quarry_mmap",
      "sources": ["mmap.c"],
      "cflags": ["-O2", "-Wall"]
    }
  ]
}
