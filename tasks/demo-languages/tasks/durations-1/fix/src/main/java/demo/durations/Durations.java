package demo.durations;

import java.util.StringJoiner;

/** Durations written for people. */
public final class Durations {
    private Durations() {}

    /**
     * A number of seconds as hours, minutes and seconds: 3725 is "1h 2m 5s". A part that is zero is
     * left out (3605 is "1h 5s"); no time at all is "0s".
     */
    public static String format(long seconds) {
        if (seconds < 0) {
            throw new IllegalArgumentException("negative duration: " + seconds);
        }
        if (seconds == 0) {
            return "0s";
        }
        long hours = seconds / 3600;
        long minutes = seconds % 3600 / 60;
        long rest = seconds % 60;
        StringJoiner out = new StringJoiner(" ");
        if (hours > 0) {
            out.add(hours + "h");
        }
        if (minutes > 0) {
            out.add(minutes + "m");
        }
        if (rest > 0) {
            out.add(rest + "s");
        }
        return out.toString();
    }
}
