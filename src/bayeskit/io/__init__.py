"""Reading and writing: model files."""
