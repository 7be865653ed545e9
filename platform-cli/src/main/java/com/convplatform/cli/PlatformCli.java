package com.convplatform.cli;
public final class PlatformCli {
    public static void main(String[] a) {
    }
}
