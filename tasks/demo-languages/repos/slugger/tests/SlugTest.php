<?php

declare(strict_types=1);

require_once __DIR__ . '/../src/Slug.php';

use PHPUnit\Framework\TestCase;
use Slugger\Slug;

final class SlugTest extends TestCase
{
    public function testLowercasesWords(): void
    {
        $this->assertSame('hello', Slug::make('Hello'));
    }

    public function testJoinsWordsWithADash(): void
    {
        $this->assertSame('hello-world', Slug::make('hello world'));
    }

    public function testKeepsDigits(): void
    {
        $this->assertSame('php-8', Slug::make('PHP 8'));
    }
}
