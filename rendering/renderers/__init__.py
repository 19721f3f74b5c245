"""The layout engines that turn a full HTML document into PDF bytes."""
