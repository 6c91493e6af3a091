"""The Qt-free, HTTP-free domain of KiraOS Desktop."""
