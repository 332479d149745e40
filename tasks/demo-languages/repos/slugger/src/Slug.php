<?php

declare(strict_types=1);

namespace Slugger;

final class Slug
{
    /** The title in lower case, every run of other characters than letters and digits one dash. */
    public static function make(string $title): string
    {
        $lower = strtolower($title);
        $dashed = preg_replace('/[^a-z0-9]/', '-', $lower);
        return trim($dashed, '-');
    }
}
