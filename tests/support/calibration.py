"""Made-up catalogs for the calibration's tests: thirty rare words, each owned by one tool."""

WORDS = ("amber", "basalt", "cobalt", "dune", "ember", "fjord", "glacier", "harbor", "iris", "jade",
         "kelp", "lagoon", "marble", "nectar", "onyx", "pebble", "quartz", "reef", "sierra", "tundra",
         "umber", "violet", "willow", "xenon", "yarrow", "zephyr", "acorn", "birch", "cedar", "delta")
