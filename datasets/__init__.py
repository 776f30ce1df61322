"""Code that builds training data for card recognition, and its small committed assets."""
